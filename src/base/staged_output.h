// Writing a command's output (a package directory, or one file) without ever destroying what the
// user had there, and so that an interrupted run leaves the old output or the new one, never half.
//
// Rules (issue 37, "never destroy"):
// - A destination directory is replaced only when it is empty or is a package ogai wrote (it holds
//   the kPackageMarker file every StagedDirectory writes); a destination file only when its start
//   shows ogai wrote it (the caller's signature). Anything else (a directory of other files, a
//   device, a FIFO, a symbolic link, a file of the wrong kind) is refused naming what it is.
// - The output is written into a sibling temporary `.NAME.ogai-tmp-PID` and renamed into place:
//   rename(2) for a file or a new directory, renameat2(RENAME_EXCHANGE) over an existing
//   directory (then the old one, now at the temporary's name, is removed). A stop signal removes
//   the temporary (base/signal_cleanup.h); one left by a killed run (SIGKILL) is removed by the
//   next run writing the same destination, recognised by its name, a process id that no longer
//   runs, and its content (the marker, the signature, or nothing at all).
// A bare relative destination ("out") is written in the working directory.
//
// Not thread-safe per object; objects for different destinations are independent.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace ogai {

// The file ogai writes into every package directory it writes.
inline constexpr const char* kPackageMarker = ".ogai-package";

// Throws kInvalidArgument naming `dst` and what it is unless it does not exist, is an empty
// directory, or (with `replace_package`) is a directory holding kPackageMarker. A package ogai
// wrote without `replace_package` is refused with `exists_hint` appended.
void check_replaceable_directory(const std::filesystem::path& dst, bool replace_package, std::string_view exists_hint);

// Throws kInvalidArgument unless `dst` does not exist or is a regular file starting with `signature`.
void check_replaceable_file(const std::filesystem::path& dst, std::string_view signature);

// Removes `.NAME.ogai-tmp-PID` entries beside `dst` whose process no longer runs and whose content
// is ogai's (a directory holding kPackageMarker or nothing; a file starting with `signature`).
void remove_stale_temporaries(const std::filesystem::path& dst, std::string_view signature = {});

// A directory assembled beside its destination; removed unless commit() put it in place.
class StagedDirectory {
 public:
  // Checks `dst` (check_replaceable_directory), removes stale temporaries, creates the temporary
  // with kPackageMarker in it. Throws kInvalidArgument / kRuntime naming the path.
  StagedDirectory(const std::filesystem::path& dst, bool replace_package, std::string_view exists_hint);
  ~StagedDirectory();
  StagedDirectory(const StagedDirectory&) = delete;
  StagedDirectory& operator=(const StagedDirectory&) = delete;

  const std::filesystem::path& path() const { return tmp_; }
  // Checks dst again, then puts the temporary in its place (see above). Throws kRuntime naming the
  // paths when the rename fails (the temporary is then removed, dst left as it was).
  void commit();

 private:
  std::filesystem::path dst_, tmp_;
  bool replace_package_;
  std::string hint_;
  int slot_ = -1;
};

// Writes `bytes` to `dst` through a sibling temporary (flushed to disk, then renamed), after
// check_replaceable_file(dst, signature). `bytes` must start with `signature`.
void write_file_replacing(const std::filesystem::path& dst, std::string_view bytes, std::string_view signature);

// `.NAME.ogai-tmp-PID` beside `dst` for this process (dst made absolute).
std::filesystem::path staging_path(const std::filesystem::path& dst);

}  // namespace ogai
