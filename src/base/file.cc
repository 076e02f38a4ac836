#include "base/file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <fstream>

#include "base/error.h"
#include "base/input_file.h"

namespace ogai {
namespace {

[[noreturn]] void fail_errno(const std::filesystem::path& path, const char* what) {
  int err = errno;
  fail(err == ENOENT ? ErrorCode::kNotFound : ErrorCode::kRuntime, path.string(), "{}: {}", what,
       std::strerror(err));
}

}  // namespace

Error filesystem_error_as_error(const std::filesystem::filesystem_error& e) {
  const int err = e.code().value();
  const ErrorCode code = err == ENOENT || err == ENOTDIR       ? ErrorCode::kNotFound
                         : err == ENAMETOOLONG || err == ELOOP ? ErrorCode::kInvalidArgument
                                                               : ErrorCode::kRuntime;
  std::string where = e.path1().string();
  if (!e.path2().empty()) where += " -> " + e.path2().string();
  return Error(code, where, e.code().message());
}

const char* file_type_name(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISREG(mode)) return "a regular file";
  return "not a regular file";
}

namespace {

void refuse_type(const std::filesystem::path& path, mode_t mode) {
  if (!S_ISREG(mode))
    fail(ErrorCode::kInvalidArgument, path.string(), "is {}, expected a regular file", file_type_name(mode));
}

[[noreturn]] void fail_budget(const std::string& what, std::uint64_t size, std::uint64_t max_bytes) {
  fail(ErrorCode::kInvalidArgument, what, "holds {} bytes{}, more than the {} bytes ogai reads from it", size,
       size > max_bytes ? "" : " or more", max_bytes);
}

// Closes a descriptor on scope exit.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// Appends what `fd` holds until its end to `out`; false when it would pass max_bytes.
bool read_to_end(int fd, std::string& out, std::uint64_t max_bytes, const std::filesystem::path& path) {
  constexpr std::size_t kChunk = 1 << 16;
  for (;;) {
    const std::size_t at = out.size();
    if (at > max_bytes) return false;
    const std::size_t want = at < max_bytes ? std::min<std::uint64_t>(kChunk, max_bytes - at + 1) : 1;
    out.resize(at + want);
    const ssize_t got = ::read(fd, out.data() + at, want);
    if (got < 0 && errno == EINTR) {
      out.resize(at);
      continue;
    }
    if (got < 0) fail_errno(path, "cannot read");
    out.resize(at + static_cast<std::size_t>(got));
    if (got == 0) return out.size() <= max_bytes;
  }
}

}  // namespace

int open_regular_file(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_errno(path, "cannot open");
  refuse_type(path, st.st_mode);  // before open(): opening a FIFO or a device can block or act
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) fail_errno(path, "cannot open");
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {  // replaced between stat() and open()
    ::close(fd);
    refuse_type(path, st.st_mode);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string read_file(const std::filesystem::path& path, std::uint64_t max_bytes) {
  FdCloser file{open_regular_file(path)};
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail_errno(path, "cannot stat");
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) fail_budget(path.string(), size, max_bytes);
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(size));
  if (!read_to_end(file.fd, bytes, max_bytes, path)) fail_budget(path.string(), bytes.size(), max_bytes);
  return bytes;
}

std::string read_file(const std::filesystem::path& path) { return read_file(path, kMaxFileBytes); }

std::string read_file_head(const std::filesystem::path& path, std::size_t n) {
  FdCloser file{open_regular_file(path)};
  std::string head(n, '\0');
  std::size_t at = 0;
  while (at < n) {
    const ssize_t got = ::read(file.fd, head.data() + at, n - at);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail_errno(path, "cannot read");
    if (got == 0) break;
    at += static_cast<std::size_t>(got);
  }
  head.resize(at);
  return head;
}

std::string read_stdin(std::string_view what, std::uint64_t max_bytes) {
  std::string bytes;
  if (!read_to_end(STDIN_FILENO, bytes, max_bytes, std::string(what)))
    fail_budget(std::string(what), bytes.size(), max_bytes);
  return bytes;
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail_errno(path, "cannot create");
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail_errno(path, "cannot write");
}

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
  const int fd = open_regular_file(path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    fail_errno(path, "cannot stat");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      ::close(fd);
      fail_errno(path, "cannot map");
    }
    data_ = static_cast<const std::uint8_t*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void MappedFile::release() {
  if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

}  // namespace ogai
