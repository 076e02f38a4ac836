#include "base/staged_output.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "base/error.h"
#include "base/file.h"
#include "base/input_file.h"
#include "base/signal_cleanup.h"
#include "base/version.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTmpInfix = ".ogai-tmp-";
constexpr const char* kReplaceRule =
    "ogai writes there only when nothing is there, into an empty directory, or over a package it wrote "
    "(one holding .ogai-package)";

[[noreturn]] void fail_errno(const fs::path& path, std::string_view what, int err = errno) {
  fail(ErrorCode::kRuntime, path.string(), "{}: {}", what, std::strerror(err));
}

// `path` made absolute, without a trailing separator ("out/" -> "/cwd/out").
fs::path absolute_target(const fs::path& path) {
  fs::path p = fs::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

// lstat(): false when nothing is there; throws on other errors (naming the path and the cause).
bool look(const fs::path& path, struct stat& st) {
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  fail_errno(path, "cannot inspect it");
}

std::vector<std::string> entries_of(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) names.push_back(it->path().filename().string());
  if (ec) fail(ErrorCode::kRuntime, dir.string(), "cannot list it: {}", ec.message());
  return names;
}

bool holds_marker(const fs::path& dir) {
  struct stat st {};
  return ::lstat((dir / kPackageMarker).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string some_names(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) text += (i ? ", " : "") + names[i];
  return names.size() > 3 ? text + ", ..." : text;
}

// The process id in a `.NAME.ogai-tmp-PID` entry name for `dst_name`, or 0.
pid_t temporary_pid(const std::string& entry, const std::string& dst_name) {
  const std::string prefix = "." + dst_name + std::string(kTmpInfix);
  if (!entry.starts_with(prefix) || entry.size() == prefix.size() || entry.size() - prefix.size() > 9) return 0;
  pid_t pid = 0;
  for (char c : entry.substr(prefix.size())) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

bool process_gone(pid_t pid) { return pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH; }

// A stale temporary's content is ogai's: a directory holding the marker or nothing, or a file that
// starts with `signature`.
bool content_is_ours(const fs::path& path, std::string_view signature) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) return holds_marker(path) || entries_of(path).empty();
  if (!S_ISREG(st.st_mode) || signature.empty()) return false;
  try {
    return read_file_head(path, signature.size()) == signature;
  } catch (const Error&) {
    return false;
  }
}

void write_all(int fd, std::string_view bytes, const fs::path& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(path, "cannot write");
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void create_parent(const fs::path& dst) {
  std::error_code ec;
  fs::create_directories(dst.parent_path(), ec);
  if (ec) fail(ErrorCode::kRuntime, dst.parent_path().string(), "cannot create the directory: {}", ec.message());
}

// Swaps two paths atomically (both must exist); false when the file system cannot.
bool exchange(const fs::path& a, const fs::path& b) {
  if (::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
  if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) return false;
  fail_errno(b, "cannot put " + a.string() + " in its place");
}

}  // namespace

fs::path staging_path(const fs::path& dst) {
  const fs::path abs = absolute_target(dst);
  return abs.parent_path() / ("." + abs.filename().string() + std::string(kTmpInfix) + std::to_string(::getpid()));
}

void check_replaceable_directory(const fs::path& dst, bool replace_package, std::string_view exists_hint) {
  const fs::path abs = absolute_target(dst);
  struct stat st {};
  if (!look(abs, st)) return;
  const std::string where = dst.string();
  if (S_ISLNK(st.st_mode)) fail(ErrorCode::kInvalidArgument, where, "is a symbolic link; {}", kReplaceRule);
  if (!S_ISDIR(st.st_mode))
    fail(ErrorCode::kInvalidArgument, where, "is {}, not a package directory; {}",
         S_ISREG(st.st_mode) ? "a regular file" : file_type_name(st.st_mode), kReplaceRule);
  const std::vector<std::string> names = entries_of(abs);
  if (names.empty()) return;
  if (holds_marker(abs)) {
    if (replace_package) return;
    fail(ErrorCode::kInvalidArgument, where, "exists{}: a package ogai wrote", exists_hint);
  }
  fail(ErrorCode::kInvalidArgument, where, "is a directory holding {} entr{} that ogai did not write ({}); {}",
       names.size(), names.size() == 1 ? "y" : "ies", some_names(names), kReplaceRule);
}

void check_replaceable_file(const fs::path& dst, std::string_view signature) {
  const fs::path abs = absolute_target(dst);
  struct stat st {};
  if (!look(abs, st)) return;
  const std::string where = dst.string();
  if (!S_ISREG(st.st_mode))
    fail(ErrorCode::kInvalidArgument, where, "is {}, not a file ogai wrote; ogai replaces only a file it wrote",
         S_ISLNK(st.st_mode) ? "a symbolic link" : file_type_name(st.st_mode));
  if (read_file_head(abs, signature.size()) != signature)
    fail(ErrorCode::kInvalidArgument, where,
         "exists and ogai did not write it (it does not start with '{}'); ogai replaces only a file it wrote",
         signature);
}

void remove_stale_temporaries(const fs::path& dst, std::string_view signature) {
  const fs::path abs = absolute_target(dst);
  const std::string name = abs.filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(abs.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const pid_t pid = temporary_pid(it->path().filename().string(), name);
    if (pid > 0 && process_gone(pid) && content_is_ours(it->path(), signature)) {
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
}

StagedDirectory::StagedDirectory(const fs::path& dst, bool replace_package, std::string_view exists_hint)
    : dst_(absolute_target(dst)), tmp_(staging_path(dst)), replace_package_(replace_package), hint_(exists_hint) {
  check_replaceable_directory(dst_, replace_package_, hint_);
  create_parent(dst_);
  remove_stale_temporaries(dst_);
  slot_ = register_cleanup(tmp_);  // before it exists: no moment without cleanup
  std::error_code ec;
  fs::remove_all(tmp_, ec);
  if (::mkdir(tmp_.c_str(), 0777) != 0) {
    const int err = errno;
    unregister_cleanup(slot_);
    slot_ = -1;
    fail_errno(tmp_, "cannot create the temporary directory", err);
  }
  const std::string marker = fmt::format(
      "Written by ogai {}. ogai replaces this directory (quantize --force) only while this file is in it.\n",
      OGAI_VERSION);
  write_file(tmp_ / kPackageMarker, marker);
}

StagedDirectory::~StagedDirectory() {
  if (slot_ < 0) return;
  std::error_code ignored;
  fs::remove_all(tmp_, ignored);
  unregister_cleanup(slot_);
}

void StagedDirectory::commit() {
  check_replaceable_directory(dst_, replace_package_, hint_);
  struct stat st {};
  if (!look(dst_, st)) {
    if (::rename(tmp_.c_str(), dst_.c_str()) != 0) fail_errno(dst_, "cannot rename " + tmp_.string() + " into place");
  } else if (!exchange(tmp_, dst_)) {  // no atomic swap here: move the old one aside first
    const fs::path aside = tmp_.string() + "-old";
    if (::rename(dst_.c_str(), aside.c_str()) != 0) fail_errno(dst_, "cannot move the existing package aside");
    if (::rename(tmp_.c_str(), dst_.c_str()) != 0) {
      const int err = errno;
      ::rename(aside.c_str(), dst_.c_str());
      fail_errno(dst_, "cannot rename " + tmp_.string() + " into place", err);
    }
    ::rename(aside.c_str(), tmp_.c_str());
  }
  std::error_code ignored;
  fs::remove_all(tmp_, ignored);  // the old package, swapped out (nothing when there was none)
  unregister_cleanup(slot_);
  slot_ = -1;
}

void write_file_replacing(const fs::path& dst, std::string_view bytes, std::string_view signature) {
  const fs::path abs = absolute_target(dst);
  OGAI_CHECK(bytes.starts_with(signature));
  check_replaceable_file(dst, signature);
  create_parent(abs);
  remove_stale_temporaries(abs, signature);
  const fs::path tmp = staging_path(abs);
  const int slot = register_cleanup(tmp);
  struct Unregister {
    int slot;
    ~Unregister() { unregister_cleanup(slot); }
  } unregister{slot};
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail_errno(dst, "cannot create " + tmp.string());
  try {
    write_all(fd, bytes, tmp);
    if (::fsync(fd) != 0) fail_errno(tmp, "cannot flush");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), abs.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail_errno(dst, "cannot rename " + tmp.string() + " into place", err);
  }
}

}  // namespace ogai
