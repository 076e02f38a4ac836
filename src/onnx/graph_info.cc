#include "onnx/graph_info.h"

#include <optional>
#include <set>

#include "base/error.h"
#include "base/file.h"
#include "onnx/textproto.h"
#include "onnx/wire.h"

namespace ogai::onnx {
namespace {

using Type = WireReader::WireType;

// Field numbers from onnx.proto.
namespace model_field { constexpr std::uint32_t kIrVersion = 1, kProducer = 2, kGraph = 7, kOpset = 8; }
namespace graph_field { constexpr std::uint32_t kNode = 1, kInitializer = 5, kInput = 11, kOutput = 12, kSparseInitializer = 15; }
namespace node_field { constexpr std::uint32_t kInput = 1, kOpType = 4, kAttribute = 5, kDomain = 7; }
namespace attribute_field { constexpr std::uint32_t kName = 1, kInt = 3; }
namespace tensor_field { constexpr std::uint32_t kDims = 1, kDataType = 2, kName = 8, kExternalData = 13, kDataLocation = 14; }
namespace type_field { constexpr std::uint32_t kTensor = 1, kSequence = 4, kMap = 5, kSparse = 8, kOptional = 9; }

void read_opset(WireReader r, GraphInfo& info) {
  std::string domain;
  std::int64_t version = 0;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == 1 && t == Type::kLengthDelimited) domain = std::string(r.read_bytes());
    else if (f == 2 && t == Type::kVarint) version = static_cast<std::int64_t>(r.read_varint());
    else r.skip(t);
  }
  info.opset_imports[domain] = version;
}

Dim read_dim(WireReader r) {
  Dim dim;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == 1 && t == Type::kVarint) dim.value = static_cast<std::int64_t>(r.read_varint());
    else if (f == 2 && t == Type::kLengthDelimited) dim.symbol = std::string(r.read_bytes());
    else r.skip(t);
  }
  return dim;
}

// TypeProto.Tensor / SparseTensor: elem_type = 1, shape = 2 (TensorShapeProto, dim = 1).
void read_tensor_type(WireReader r, ValueInfo& value) {
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == 1 && t == Type::kVarint) {
      value.dtype = dtype_from_onnx(static_cast<std::int32_t>(r.read_varint())).value_or(DataType::kUndefined);
    } else if (f == 2 && t == Type::kLengthDelimited) {
      value.has_shape = true;
      WireReader shape = r.read_message();
      while (!shape.done()) {
        std::uint32_t sf; Type st; shape.next_field(sf, st);
        if (sf == 1 && st == Type::kLengthDelimited) value.shape.push_back(read_dim(shape.read_message()));
        else shape.skip(st);
      }
    } else {
      r.skip(t);
    }
  }
}

void read_type(WireReader r, ValueInfo& value) {
  value.kind = ValueInfo::Kind::kUnknown;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (t != Type::kLengthDelimited) { r.skip(t); continue; }
    switch (f) {
      case type_field::kTensor: value.kind = ValueInfo::Kind::kTensor; read_tensor_type(r.read_message(), value); break;
      case type_field::kSparse: value.kind = ValueInfo::Kind::kSparseTensor; read_tensor_type(r.read_message(), value); break;
      case type_field::kSequence: value.kind = ValueInfo::Kind::kSequence; r.skip(t); break;
      case type_field::kMap: value.kind = ValueInfo::Kind::kMap; r.skip(t); break;
      case type_field::kOptional: value.kind = ValueInfo::Kind::kOptional; r.skip(t); break;
      default: r.skip(t);
    }
  }
}

ValueInfo read_value_info(WireReader r) {
  ValueInfo value;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == 1 && t == Type::kLengthDelimited) value.name = std::string(r.read_bytes());
    else if (f == 2 && t == Type::kLengthDelimited) read_type(r.read_message(), value);
    else r.skip(t);
  }
  return value;
}

void read_packed_or_single_dims(WireReader& r, Type t, std::vector<std::int64_t>& dims) {
  if (t == Type::kVarint) { dims.push_back(static_cast<std::int64_t>(r.read_varint())); return; }
  WireReader packed = r.read_message();
  while (!packed.done()) dims.push_back(static_cast<std::int64_t>(packed.read_varint()));
}

// TensorProto: everything but the data fields, which are skipped in place.
Initializer read_initializer(WireReader r) {
  Initializer init;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == tensor_field::kDims && (t == Type::kVarint || t == Type::kLengthDelimited)) {
      read_packed_or_single_dims(r, t, init.dims);
    } else if (f == tensor_field::kDataType && t == Type::kVarint) {
      init.dtype = dtype_from_onnx(static_cast<std::int32_t>(r.read_varint())).value_or(DataType::kUndefined);
    } else if (f == tensor_field::kName && t == Type::kLengthDelimited) {
      init.name = std::string(r.read_bytes());
    } else if (f == tensor_field::kDataLocation && t == Type::kVarint) {
      init.external = r.read_varint() == 1;
    } else if (f == tensor_field::kExternalData && t == Type::kLengthDelimited) {
      WireReader entry = r.read_message();
      std::string key, value;
      while (!entry.done()) {
        std::uint32_t ef; Type et; entry.next_field(ef, et);
        if (ef == 1 && et == Type::kLengthDelimited) key = std::string(entry.read_bytes());
        else if (ef == 2 && et == Type::kLengthDelimited) value = std::string(entry.read_bytes());
        else entry.skip(et);
      }
      if (key == "location") init.external_location = value;
    } else {
      r.skip(t);
    }
  }
  return init;
}

// SparseTensorProto: values (TensorProto) = 1 carries the name; dims = 3.
Initializer read_sparse_initializer(WireReader r) {
  Initializer init;
  std::vector<std::int64_t> dims;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == 1 && t == Type::kLengthDelimited) init = read_initializer(r.read_message());
    else if (f == 3 && (t == Type::kVarint || t == Type::kLengthDelimited)) read_packed_or_single_dims(r, t, dims);
    else r.skip(t);
  }
  init.dims = dims;
  return init;
}

bool is_attention_op(const std::string& domain, const std::string& op_type) {
  static const std::set<std::string> kOps = {"GroupQueryAttention", "MultiHeadAttention", "PagedAttention",
                                             "SparseAttention", "Attention"};
  return domain == "com.microsoft" && kOps.contains(op_type);
}

// An AttributeProto's name and integer value (i), when it has one.
void read_int_attribute(WireReader r, AttentionNode& node) {
  std::string name;
  std::optional<std::int64_t> value;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == attribute_field::kName && t == Type::kLengthDelimited) name = std::string(r.read_bytes());
    else if (f == attribute_field::kInt && t == Type::kVarint) value = static_cast<std::int64_t>(r.read_varint());
    else r.skip(t);
  }
  if (value) node.int_attributes[name] = *value;
}

// Second walk over an attention node: its inputs and integer attributes.
AttentionNode read_attention_node(WireReader r, std::string op_type) {
  AttentionNode node;
  node.op_type = std::move(op_type);
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == node_field::kInput && t == Type::kLengthDelimited) node.inputs.emplace_back(r.read_bytes());
    else if (f == node_field::kAttribute && t == Type::kLengthDelimited) read_int_attribute(r.read_message(), node);
    else r.skip(t);
  }
  return node;
}

void read_node(WireReader r, GraphInfo& info) {
  const WireReader start = r;
  std::string op_type, domain;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == node_field::kOpType && t == Type::kLengthDelimited) op_type = std::string(r.read_bytes());
    else if (f == node_field::kDomain && t == Type::kLengthDelimited) domain = std::string(r.read_bytes());
    else r.skip(t);
  }
  if (domain == "ai.onnx") domain.clear();
  ++info.op_types[domain + ":" + op_type];
  ++info.node_count;
  if (is_attention_op(domain, op_type)) info.attention_nodes.push_back(read_attention_node(start, op_type));
}

void read_graph(WireReader r, GraphInfo& info) {
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (t != Type::kLengthDelimited) { r.skip(t); continue; }
    switch (f) {
      case graph_field::kNode: read_node(r.read_message(), info); break;
      case graph_field::kInitializer: info.initializers.push_back(read_initializer(r.read_message())); break;
      case graph_field::kSparseInitializer: info.initializers.push_back(read_sparse_initializer(r.read_message())); break;
      case graph_field::kInput: info.inputs.push_back(read_value_info(r.read_message())); break;
      case graph_field::kOutput: info.outputs.push_back(read_value_info(r.read_message())); break;
      default: r.skip(t);
    }
  }
}

}  // namespace

const ValueInfo* GraphInfo::find_input(const std::string& name) const {
  for (const auto& v : inputs) if (v.name == name) return &v;
  return nullptr;
}

const ValueInfo* GraphInfo::find_output(const std::string& name) const {
  for (const auto& v : outputs) if (v.name == name) return &v;
  return nullptr;
}

const Initializer* GraphInfo::find_initializer(const std::string& name) const {
  for (const auto& i : initializers) if (i.name == name) return &i;
  return nullptr;
}

std::vector<const ValueInfo*> GraphInfo::runtime_inputs() const {
  std::set<std::string> inits;
  for (const auto& i : initializers) inits.insert(i.name);
  std::vector<const ValueInfo*> result;
  for (const auto& v : inputs) if (!inits.count(v.name)) result.push_back(&v);
  return result;
}

std::vector<std::string> GraphInfo::external_data_files() const {
  std::set<std::string> files;
  for (const auto& i : initializers) if (i.external && !i.external_location.empty()) files.insert(i.external_location);
  return {files.begin(), files.end()};
}

bool is_textproto_path(const std::filesystem::path& path) {
  std::string name = path.filename().string();
  auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".textproto") || ends_with(".pbtxt");
}

GraphInfo read_graph_info_from_bytes(const std::uint8_t* data, std::size_t size, const std::string& origin) {
  GraphInfo info;
  WireReader r(data, data + size, &origin);
  bool has_graph = false;
  while (!r.done()) {
    std::uint32_t f; Type t; r.next_field(f, t);
    if (f == model_field::kIrVersion && t == Type::kVarint) info.ir_version = static_cast<std::int64_t>(r.read_varint());
    else if (f == model_field::kProducer && t == Type::kLengthDelimited) info.producer_name = std::string(r.read_bytes());
    else if (f == model_field::kOpset && t == Type::kLengthDelimited) read_opset(r.read_message(), info);
    else if (f == model_field::kGraph && t == Type::kLengthDelimited) { read_graph(r.read_message(), info); has_graph = true; }
    else r.skip(t);
  }
  if (!has_graph) fail(ErrorCode::kParse, origin, "not an ONNX model: the ModelProto has no graph");
  return info;
}

GraphInfo read_graph_info(const std::filesystem::path& path) {
  if (is_textproto_path(path)) {
    std::string bytes = textproto_to_binary(path);
    return read_graph_info_from_bytes(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size(), path.string());
  }
  MappedFile file(path);
  return read_graph_info_from_bytes(file.data(), file.size(), path.string());
}

}  // namespace ogai::onnx
