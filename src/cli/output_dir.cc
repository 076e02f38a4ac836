#include "cli/output_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/error.h"

namespace ogai::cli {
namespace {

namespace fs = std::filesystem;

fs::path target(const std::string& dir, const std::string& relative) {
  const fs::path rel(relative);
  bool escapes = rel.empty() || rel.is_absolute();
  for (const auto& part : rel) escapes = escapes || part == "..";
  if (escapes) fail(ErrorCode::kInternal, "--output-dir " + dir, "refusing the file name '{}'", relative);
  return fs::path(dir) / rel;
}

void write_new(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    fail(ErrorCode::kInvalidArgument, "--output-dir", "cannot create {}: {}{}", path.string(), std::strerror(errno),
         errno == EEXIST ? " (ogai never replaces a file; choose an empty folder)" : "");
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      fail(ErrorCode::kRuntime, "--output-dir", "writing {} failed: {}", path.string(), std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail(ErrorCode::kRuntime, "--output-dir", "closing {} failed: {}", path.string(), std::strerror(errno));
}

}  // namespace

void write_output_files(const std::string& dir, const std::vector<OutputFile>& files) {
  for (const auto& file : files) {
    std::error_code ec;
    const auto path = target(dir, file.path);
    if (fs::exists(fs::symlink_status(path, ec)))
      fail(ErrorCode::kInvalidArgument, "--output-dir", "{} already exists; ogai never replaces a file (nothing was written)",
           path.string());
  }
  for (const auto& file : files) {
    const auto path = target(dir, file.path);
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) fail(ErrorCode::kInvalidArgument, "--output-dir", "cannot create the folder {}: {}", path.parent_path().string(), ec.message());
    write_new(path, file.bytes);
    std::fprintf(stderr, "wrote %s (%zu bytes)\n", path.c_str(), file.bytes.size());
  }
}

}  // namespace ogai::cli
