#include "workflow/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <utility>

#include "base/error.h"
#include "base/half.h"
#include "base/json_parse.h"

namespace ogai::workflow {
namespace {

struct DtypeName {
  std::string_view name;
  DataType type;
};

// The format's dtype strings (safetensors' Dtype enum) that have an ONNX counterpart.
constexpr DtypeName kDtypes[] = {
    {"F64", DataType::kFloat64},  {"F32", DataType::kFloat32},     {"F16", DataType::kFloat16},
    {"BF16", DataType::kBfloat16}, {"I64", DataType::kInt64},      {"I32", DataType::kInt32},
    {"I16", DataType::kInt16},    {"I8", DataType::kInt8},         {"U64", DataType::kUint64},
    {"U32", DataType::kUint32},   {"U16", DataType::kUint16},      {"U8", DataType::kUint8},
    {"BOOL", DataType::kBool},    {"F8_E4M3", DataType::kFloat8E4M3FN}, {"F8_E5M2", DataType::kFloat8E5M2},
};

DataType dtype_of(const std::string& name, const std::string& where) {
  for (const auto& d : kDtypes)
    if (d.name == name) return d.type;
  fail(ErrorCode::kParse, where, "unknown dtype '{}' (expected F64, F32, F16, BF16, I64..I8, U64..U8, BOOL, F8_E4M3 or F8_E5M2)",
       name);
}

std::uint64_t read_u64_le(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint64_t offset_value(const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_unsigned()) fail(ErrorCode::kParse, where, "data_offsets must hold two non-negative integers, got {}", v.dump());
  return v.get<std::uint64_t>();
}

SafetensorsEntry read_entry(const nlohmann::json& e, const std::string& where, std::uint64_t data_bytes) {
  if (!e.is_object()) fail(ErrorCode::kParse, where, "a tensor entry must be an object, got {}", e.type_name());
  for (const auto& [key, _] : e.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      fail(ErrorCode::kParse, where, "unknown key '{}' (expected dtype, shape, data_offsets)", key);
  SafetensorsEntry out;
  const auto dt = e.find("dtype");
  if (dt == e.end() || !dt->is_string()) fail(ErrorCode::kParse, where + ".dtype", "missing or not a string");
  out.dtype_name = dt->get<std::string>();
  out.dtype = dtype_of(out.dtype_name, where + ".dtype");
  const auto sh = e.find("shape");
  if (sh == e.end() || !sh->is_array()) fail(ErrorCode::kParse, where + ".shape", "missing or not an array");
  if (sh->size() > 16) fail(ErrorCode::kParse, where + ".shape", "rank {} exceeds 16", sh->size());
  std::uint64_t elements = 1;
  for (const auto& d : *sh) {
    if (!d.is_number_unsigned()) fail(ErrorCode::kParse, where + ".shape", "dims must be non-negative integers, got {}", sh->dump());
    const auto dim = d.get<std::uint64_t>();
    if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
        (dim != 0 && elements > std::numeric_limits<std::uint64_t>::max() / dim))
      fail(ErrorCode::kParse, where + ".shape", "element count of {} overflows", sh->dump());
    elements *= dim;
    out.shape.push_back(static_cast<std::int64_t>(dim));
  }
  const auto off = e.find("data_offsets");
  if (off == e.end() || !off->is_array() || off->size() != 2)
    fail(ErrorCode::kParse, where + ".data_offsets", "must be [begin, end]");
  out.begin = offset_value((*off)[0], where + ".data_offsets");
  out.end = offset_value((*off)[1], where + ".data_offsets");
  if (out.begin > out.end || out.end > data_bytes)
    fail(ErrorCode::kParse, where + ".data_offsets", "[{}, {}] is not a range inside the {}-byte data section", out.begin,
         out.end, data_bytes);
  const std::uint64_t size = dtype_size(out.dtype);
  if (elements > data_bytes / std::max<std::uint64_t>(size, 1) || out.end - out.begin != elements * size)
    fail(ErrorCode::kParse, where, "{} {} of shape {} needs {} bytes; data_offsets span {}", elements, out.dtype_name,
         sh->dump(), elements * size, out.end - out.begin);
  return out;
}

void check_metadata(const nlohmann::json& m, const std::string& where) {
  if (!m.is_object()) fail(ErrorCode::kParse, where, "__metadata__ must be an object of strings");
  for (const auto& [key, value] : m.items())
    if (!value.is_string()) fail(ErrorCode::kParse, where + "." + key, "__metadata__ values must be strings");
}

// The tensors must tile [0, data_bytes) in offset order.
void check_tiling(const std::map<std::string, SafetensorsEntry>& entries, std::uint64_t data_bytes, const std::string& where) {
  std::vector<std::pair<std::uint64_t, const std::string*>> order;
  for (const auto& [name, e] : entries) order.emplace_back(e.begin, &name);
  std::sort(order.begin(), order.end());
  std::uint64_t cursor = 0;
  for (const auto& [begin, name] : order) {
    if (begin != cursor)
      fail(ErrorCode::kParse, where, "tensor '{}' starts at data byte {}, expected {} (tensors must not overlap or leave gaps)",
           *name, begin, cursor);
    cursor = entries.at(*name).end;
  }
  if (cursor != data_bytes)
    fail(ErrorCode::kParse, where, "the tensors cover {} of the {} data bytes (the file is truncated or has trailing bytes)",
         cursor, data_bytes);
}

}  // namespace

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path, const SafetensorsLimits& limits) {
  const std::string where = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(ErrorCode::kNotFound, where, "is not a readable regular file");
  const auto bytes = std::filesystem::file_size(path, ec);
  if (ec) fail(ErrorCode::kNotFound, where, "cannot read its size: {}", ec.message());
  if (bytes > limits.max_file_bytes)
    fail(ErrorCode::kParse, where, "{} bytes exceeds the safetensors limit of {} bytes", bytes, limits.max_file_bytes);
  if (bytes < 8) fail(ErrorCode::kParse, where, "truncated: {} bytes, but the header length alone takes 8", bytes);
  SafetensorsFile out{MappedFile(path)};
  const std::uint64_t size = out.file_.size();
  if (size < 8) fail(ErrorCode::kParse, where, "truncated while reading: {} bytes", size);
  const std::uint64_t header = read_u64_le(out.file_.data());
  if (header > limits.max_header_bytes)
    fail(ErrorCode::kParse, where, "header length {} exceeds the limit of {} bytes", header, limits.max_header_bytes);
  if (header > size - 8)
    fail(ErrorCode::kParse, where, "header length {} runs past the end of the file ({} bytes after the length)", header,
         size - 8);
  const std::string_view text = out.file_.view().substr(8, header);
  if (text.empty() || text.front() != '{') fail(ErrorCode::kParse, where, "the header must be a JSON object starting with '{{'");
  const auto doc = parse_json_bounded<nlohmann::json>(text, where + " (header)");
  if (!doc.is_object()) fail(ErrorCode::kParse, where, "the header is not a JSON object");
  if (doc.size() > limits.max_tensors + 1)
    fail(ErrorCode::kParse, where, "{} header entries exceed the limit of {}", doc.size(), limits.max_tensors);
  out.data_start_ = 8 + header;
  const std::uint64_t data_bytes = size - out.data_start_;
  for (const auto& [name, entry] : doc.items()) {
    if (name == "__metadata__") {
      check_metadata(entry, where + " __metadata__");
      continue;
    }
    out.entries_.emplace(name, read_entry(entry, where + " tensor '" + name + "'", data_bytes));
  }
  check_tiling(out.entries_, data_bytes, where);
  return out;
}

const SafetensorsEntry* SafetensorsFile::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<float> SafetensorsFile::floats(const std::string& name) const {
  const SafetensorsEntry* e = find(name);
  if (!e) fail(ErrorCode::kNotFound, path().string(), "has no tensor '{}'", name);
  const std::uint8_t* src = file_.data() + data_start_ + e->begin;
  const std::size_t count = (e->end - e->begin) / dtype_size(e->dtype);
  std::vector<float> out(count);
  switch (e->dtype) {
    case DataType::kFloat32:
      if (count) std::memcpy(out.data(), src, count * sizeof(float));
      break;
    case DataType::kFloat64:
      for (std::size_t i = 0; i < count; ++i) {
        double d;
        std::memcpy(&d, src + i * 8, 8);
        out[i] = static_cast<float>(d);
      }
      break;
    case DataType::kFloat16:
    case DataType::kBfloat16:
      if (count) convert_floats(src, e->dtype, out.data(), DataType::kFloat32, count);
      break;
    default:
      fail(ErrorCode::kUnsupported, path().string() + " tensor '" + name + "'",
           "dtype {} is not a float type (expected F32, F16, BF16 or F64)", e->dtype_name);
  }
  return out;
}

}  // namespace ogai::workflow
