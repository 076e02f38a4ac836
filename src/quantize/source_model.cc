#include "quantize/source_model.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include "base/error.h"
#include "onnx/model_split.h"
#include "onnx/wire.h"

namespace ogai::quantize {
namespace {

using onnx::WireReader;
using Type = WireReader::WireType;

constexpr std::uint32_t kTensorRawData = 9;  // TensorProto.raw_data (onnx.proto)

std::string_view span_of(const std::uint8_t* begin, const std::uint8_t* end) {
  return {reinterpret_cast<const char*>(begin), static_cast<std::size_t>(end - begin)};
}

std::uint64_t parse_number(const std::string& value, const std::string& key,
                           const std::string& where) {
  try {
    std::size_t used = 0;
    const unsigned long long n = std::stoull(value, &used);
    if (used == value.size()) return n;
  } catch (const std::exception&) {
  }
  fail(ErrorCode::kParse, where, "external_data {} '{}' is not a byte count", key, value);
}

// The TensorProto at `r` (one initializer field): every field but raw_data parsed by protobuf.
SourceTensor read_tensor(WireReader r, const std::uint8_t* file_begin, const std::string& origin) {
  SourceTensor t;
  std::string kept;
  bool has_raw = false;
  while (!r.done()) {
    const std::uint8_t* field_begin = r.position();
    std::uint32_t field;
    Type type;
    r.next_field(field, type);
    if (field == kTensorRawData && type == Type::kLengthDelimited) {
      std::string_view raw = r.read_bytes();
      t.offset = static_cast<std::uint64_t>(reinterpret_cast<const std::uint8_t*>(raw.data()) -
                                            file_begin);
      t.length = raw.size();
      has_raw = true;
      continue;
    }
    r.skip(type);
    kept.append(span_of(field_begin, r.position()));
  }
  if (!t.meta.ParseFromString(kept))
    fail(ErrorCode::kParse, origin, "an initializer is not a valid TensorProto");
  t.dtype = dtype_from_onnx(t.meta.data_type()).value_or(DataType::kUndefined);
  const std::string where = origin + ": initializer " + t.meta.name();
  if (t.meta.data_location() == ::onnx::TensorProto::EXTERNAL) {
    bool has_length = false;
    for (const auto& entry : t.meta.external_data()) {
      if (entry.key() == "location")
        t.external_location = entry.value();
      else if (entry.key() == "offset")
        t.offset = parse_number(entry.value(), "offset", where);
      else if (entry.key() == "length")
        t.length = parse_number(entry.value(), "length", where), has_length = true;
    }
    if (t.external_location.empty())
      fail(ErrorCode::kParse, where, "external data without a location");
    if (!has_length) t.length = static_cast<std::uint64_t>(t.element_count()) * dtype_size(t.dtype);
    t.meta.clear_external_data();
    t.meta.clear_data_location();
  } else if (!has_raw) {
    t.typed = true;
  }
  return t;
}

}  // namespace

std::int64_t SourceTensor::element_count() const {
  std::int64_t count = 1;
  for (std::int64_t d : meta.dims()) count *= d;
  return count;
}

SourceModel::SourceModel(const std::filesystem::path& path) : path_(path), file_(path) {
  const std::string origin = path.string();
  const std::uint8_t* begin = file_.data();
  onnx::SplitModel split =
      onnx::split_model({reinterpret_cast<const char*>(begin), file_.size()}, origin);
  skeleton_ = std::move(split.skeleton);
  initializers_.reserve(split.initializers.size());
  for (const auto& init : split.initializers) {
    const auto* tensor = reinterpret_cast<const std::uint8_t*>(init.tensor.data());
    initializers_.push_back(read_tensor(WireReader(tensor, tensor + init.tensor.size(), &origin), begin, origin));
  }
}

std::vector<std::string> SourceModel::external_files() const {
  std::set<std::string> files;
  for (const auto& t : initializers_)
    if (!t.external_location.empty()) files.insert(t.external_location);
  return {files.begin(), files.end()};
}

const MappedFile& SourceModel::external(const std::string& location) {
  auto& slot = externals_[location];
  if (!slot) {
    const std::filesystem::path relative(location);
    if (relative.is_absolute() || location.find("..") != std::string::npos)
      fail(ErrorCode::kInvalidPackage, path_.string(),
           "external data location '{}' leaves the model's folder", location);
    slot = std::make_unique<MappedFile>(path_.parent_path() / relative);
  }
  return *slot;
}

std::span<const std::uint8_t> SourceModel::data(const SourceTensor& t) {
  release();
  if (t.typed) {
    const std::size_t bytes = static_cast<std::size_t>(t.element_count()) * dtype_size(t.dtype);
    typed_bytes_.assign(bytes, 0);
    const auto& m = t.meta;
    if (m.float_data_size() > 0 && t.dtype == DataType::kFloat32) {
      std::memcpy(typed_bytes_.data(), m.float_data().data(),
                  std::min<std::size_t>(bytes, m.float_data_size() * 4u));
    } else if (m.int32_data_size() > 0) {  // int32 and narrower types (float16 as uint16 bits)
      const std::size_t size = dtype_size(t.dtype);
      for (int i = 0; i < m.int32_data_size() && (i + 1) * size <= bytes; ++i) {
        const std::int32_t value = m.int32_data(i);
        std::memcpy(typed_bytes_.data() + i * size, &value, size);
      }
    } else if (m.int64_data_size() > 0 && t.dtype == DataType::kInt64) {
      std::memcpy(typed_bytes_.data(), m.int64_data().data(),
                  std::min<std::size_t>(bytes, m.int64_data_size() * 8u));
    } else if (m.double_data_size() > 0 && t.dtype == DataType::kFloat64) {
      std::memcpy(typed_bytes_.data(), m.double_data().data(),
                  std::min<std::size_t>(bytes, m.double_data_size() * 8u));
    } else if (bytes > 0) {
      fail(ErrorCode::kUnsupported, path_.string(),
           "initializer {} stores {} values in a field ogai does not copy", m.name(),
           dtype_name(t.dtype));
    }
    return typed_bytes_;
  }
  const MappedFile& file = t.external_location.empty() ? file_ : external(t.external_location);
  if (t.offset > file.size() || t.length > file.size() - t.offset)
    fail(ErrorCode::kInvalidPackage, file.path().string(),
         "initializer {}: bytes {}..{} lie outside the file ({} bytes)", t.meta.name(), t.offset,
         t.offset + t.length, file.size());
  last_ = {file.data() + t.offset, static_cast<std::size_t>(t.length)};
  return last_;
}

void SourceModel::release() {
  typed_bytes_.clear();
  typed_bytes_.shrink_to_fit();
  if (last_.empty()) return;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(last_.data()) & ~(page - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(last_.data() + last_.size());
  madvise(reinterpret_cast<void*>(begin), end - begin,
          MADV_DONTNEED);  // private read-only map: pages re-read on demand
  last_ = {};
}

}  // namespace ogai::quantize
