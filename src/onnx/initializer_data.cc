#include "onnx/initializer_data.h"

#include <cstring>
#include <optional>

#include "base/error.h"
#include "base/file.h"
#include "onnx/graph_info.h"
#include "onnx/textproto.h"
#include "onnx/wire.h"

namespace ogai::onnx {
namespace {

using Type = WireReader::WireType;

struct ExternalRef {
  std::string location;
  std::uint64_t offset = 0;
  std::int64_t length = -1;
};

struct TensorView {
  InitializerData data;
  std::string_view raw;             // raw_data
  std::vector<std::uint8_t> typed;  // float_data / int32_data / int64_data, converted to bytes
  bool external = false;
  ExternalRef ref;
};

void read_packed_varints(WireReader& r, Type t, std::vector<std::int64_t>& out) {
  if (t == Type::kVarint) {
    out.push_back(static_cast<std::int64_t>(r.read_varint()));
    return;
  }
  WireReader packed = r.read_message();
  while (!packed.done()) out.push_back(static_cast<std::int64_t>(packed.read_varint()));
}

void read_external_entry(WireReader entry, ExternalRef& ref) {
  std::string key, value;
  while (!entry.done()) {
    std::uint32_t f; Type t; entry.next_field(f, t);
    if (f == 1 && t == Type::kLengthDelimited) key = std::string(entry.read_bytes());
    else if (f == 2 && t == Type::kLengthDelimited) value = std::string(entry.read_bytes());
    else entry.skip(t);
  }
  if (key == "location") ref.location = value;
  else if (key == "offset") ref.offset = std::stoull(value);
  else if (key == "length") ref.length = std::stoll(value);
}

// Fills `view` from a TensorProto; returns false when its name is not `name`.
bool read_tensor(WireReader r, const std::string& name, TensorView& view) {
  TensorView v;
  std::vector<std::int64_t> int_values;
  std::string_view floats;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    switch (f) {
      case 1: read_packed_varints(r, t, v.data.dims); break;
      case 2: v.data.dtype = dtype_from_onnx(static_cast<std::int32_t>(r.read_varint())).value_or(DataType::kUndefined); break;
      case 4: floats = r.read_bytes(); break;  // packed float_data
      case 5: case 7: read_packed_varints(r, t, int_values); break;  // int32_data / int64_data
      case 8: v.data.name = std::string(r.read_bytes()); break;
      case 9: v.raw = r.read_bytes(); break;
      case 13: read_external_entry(r.read_message(), v.ref); break;
      case 14: v.external = r.read_varint() == 1; break;
      default: r.skip(t);
    }
  }
  if (v.data.name != name) return false;
  if (!floats.empty()) v.typed.assign(floats.begin(), floats.end());
  for (std::int64_t x : int_values) {
    const std::size_t size = dtype_size(v.data.dtype);
    const std::size_t at = v.typed.size();
    v.typed.resize(at + size);
    std::memcpy(v.typed.data() + at, &x, size);  // little-endian truncation to the element size
  }
  view = std::move(v);
  return true;
}

bool find_in_graph(WireReader graph, const std::string& name, TensorView& view) {
  while (!graph.done()) {
    std::uint32_t f; Type t; graph.next_field(f, t);
    if (f == 5 && t == Type::kLengthDelimited) {
      if (read_tensor(graph.read_message(), name, view)) return true;
    } else {
      graph.skip(t);
    }
  }
  return false;
}

bool find_in_model(const std::uint8_t* data, std::size_t size, const std::string& origin, const std::string& name,
                   TensorView& view) {
  WireReader r(data, data + size, &origin);
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == 7 && t == Type::kLengthDelimited) return find_in_graph(r.read_message(), name, view);
    r.skip(t);
  }
  return false;
}

std::vector<std::uint8_t> read_external(const std::filesystem::path& model, const ExternalRef& ref,
                                        std::size_t expected, const std::string& name) {
  if (ref.location.empty() || ref.location.find("..") != std::string::npos || ref.location.front() == '/')
    fail(ErrorCode::kInvalidPackage, model.string(), "initializer '{}' names external data '{}' outside the model's folder",
         name, ref.location);
  MappedFile file(model.parent_path() / ref.location);
  const std::size_t length = ref.length >= 0 ? static_cast<std::size_t>(ref.length) : expected;
  if (ref.offset > file.size() || length > file.size() - ref.offset || length != expected)
    fail(ErrorCode::kInvalidPackage, file.path().string(),
         "initializer '{}' wants bytes [{}, {}) but the file has {} and the tensor needs {}", name, ref.offset,
         ref.offset + length, file.size(), expected);
  return {file.data() + ref.offset, file.data() + ref.offset + length};
}

}  // namespace

InitializerData read_initializer_data(const std::filesystem::path& model, const std::string& name) {
  std::string converted;  // text-format models, as binary
  std::optional<MappedFile> mapped;
  const std::uint8_t* bytes;
  std::size_t size;
  if (is_textproto_path(model)) {
    converted = textproto_to_binary(model);
    bytes = reinterpret_cast<const std::uint8_t*>(converted.data());
    size = converted.size();
  } else {
    mapped.emplace(model);
    bytes = mapped->data();
    size = mapped->size();
  }
  TensorView view;
  const bool found = find_in_model(bytes, size, model.string(), name, view);
  if (found && !view.raw.empty()) view.typed.assign(view.raw.begin(), view.raw.end());
  if (!found) fail(ErrorCode::kNotFound, model.string(), "the graph has no initializer named '{}'", name);
  InitializerData& data = view.data;
  std::size_t count = 1;
  for (auto d : data.dims) count *= static_cast<std::size_t>(d);
  const std::size_t expected = count * dtype_size(data.dtype);
  if (expected == 0 && count > 0)
    fail(ErrorCode::kUnsupported, model.string(), "initializer '{}' has element type {}, which cannot be read", name,
         dtype_name(data.dtype));
  data.bytes = view.external ? read_external(model, view.ref, expected, name) : std::move(view.typed);
  if (data.bytes.size() != expected)
    fail(ErrorCode::kInvalidPackage, model.string(), "initializer '{}' holds {} bytes, its shape needs {}", name,
         data.bytes.size(), expected);
  return std::move(view.data);
}

}  // namespace ogai::onnx
