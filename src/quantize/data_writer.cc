#include "quantize/data_writer.h"

#include <cerrno>
#include <cstring>

#include "base/error.h"

namespace ogai::quantize {
namespace {

constexpr std::size_t kInlineLimit = 1024;  // bytes; smaller tensors stay in the model file
constexpr std::uint64_t kAlignment = 64;

}  // namespace

DataWriter::DataWriter(std::filesystem::path data_file, std::string location)
    : path_(std::move(data_file)), location_(std::move(location)) {}

DataWriter::~DataWriter() {
  if (file_) std::fclose(file_);
}

void DataWriter::append(const void* data, std::size_t size) {
  if (!file_) {
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_)
      fail(ErrorCode::kRuntime, path_.string(), "cannot create the file: {}", std::strerror(errno));
  }
  if (size > 0 && std::fwrite(data, 1, size, file_) != size)
    fail(ErrorCode::kRuntime, path_.string(), "writing failed: {}", std::strerror(errno));
  offset_ += size;
}

::onnx::TensorProto DataWriter::write(const std::string& name, DataType dtype,
                                      const std::vector<std::int64_t>& dims,
                                      std::span<const std::uint8_t> bytes,
                                      const ::onnx::TensorProto* base) {
  ::onnx::TensorProto t;
  if (base) t = *base;
  t.set_name(name);
  t.set_data_type(static_cast<std::int32_t>(dtype));
  t.clear_dims();
  for (std::int64_t d : dims) t.add_dims(d);
  total_ += bytes.size();
  if (bytes.size() < kInlineLimit) {
    t.set_raw_data(bytes.data(), bytes.size());
    return t;
  }
  static const char zeros[kAlignment] = {};
  if (offset_ % kAlignment) append(zeros, kAlignment - offset_ % kAlignment);
  const std::uint64_t at = offset_;
  append(bytes.data(), bytes.size());
  t.set_data_location(::onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* key, const std::string& value) {
    auto* e = t.add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  add("location", location_);
  add("offset", std::to_string(at));
  add("length", std::to_string(bytes.size()));
  return t;
}

void DataWriter::finish() {
  if (!file_) return;
  const bool flushed = std::fflush(file_) == 0;
  const int error = errno;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!flushed || !closed)
    fail(ErrorCode::kRuntime, path_.string(), "writing failed: {}",
         std::strerror(flushed ? errno : error));
}

}  // namespace ogai::quantize
