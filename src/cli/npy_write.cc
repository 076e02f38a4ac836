#include "cli/npy_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/error.h"
#include "base/half.h"

namespace ogai::cli {
namespace {

const char* descr(DataType dtype, const std::filesystem::path& path) {
  switch (dtype) {
    case DataType::kFloat32:
    case DataType::kBfloat16: return "<f4";
    case DataType::kFloat16: return "<f2";
    case DataType::kInt64: return "<i8";
    case DataType::kInt32: return "<i4";
    case DataType::kInt8: return "|i1";
    case DataType::kUint8: return "|u1";
    case DataType::kBool: return "|b1";
    default: fail(ErrorCode::kUnsupported, path.string(), "no .npy type for dtype {}", dtype_name(dtype));
  }
}

std::string header(const char* type, std::span<const std::int64_t> shape) {
  std::string dims;
  for (std::int64_t d : shape) dims += std::to_string(d) + ", ";
  if (!shape.empty()) dims.resize(dims.size() - (shape.size() == 1 ? 1 : 2));  // "(5,)", "(1, 2)"
  std::string dict = std::string("{'descr': '") + type + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;  // magic, version, length; the dict; '\n'
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

void write_all(int fd, const void* data, std::size_t n, const std::filesystem::path& path) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fail(ErrorCode::kRuntime, path.string(), "cannot write: {}", std::strerror(errno));
    p += w, n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

void write_npy_exclusive(const std::filesystem::path& path, DataType dtype, std::span<const std::int64_t> shape,
                         std::span<const std::uint8_t> data) {
  const std::string head = header(descr(dtype, path), shape);
  std::vector<std::uint8_t> widened;
  if (dtype == DataType::kBfloat16) {
    widened.resize(data.size() * 2);
    convert_floats(data.data(), DataType::kBfloat16, widened.data(), DataType::kFloat32, data.size() / 2);
    data = widened;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST)
      fail(ErrorCode::kInvalidArgument, path.string(), "already exists; ogai preprocess never replaces a file");
    fail(ErrorCode::kRuntime, path.string(), "cannot create: {}", std::strerror(errno));
  }
  try {
    write_all(fd, head.data(), head.size(), path);
    write_all(fd, data.data(), data.size(), path);
  } catch (...) {
    ::close(fd);
    std::filesystem::remove(path);
    throw;
  }
  if (::close(fd) != 0) fail(ErrorCode::kRuntime, path.string(), "cannot close: {}", std::strerror(errno));
}

}  // namespace ogai::cli
