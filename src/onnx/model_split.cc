#include "onnx/model_split.h"

#include "base/error.h"
#include "onnx/wire.h"

namespace ogai::onnx {
namespace {

using Type = WireReader::WireType;

// Field numbers from onnx.proto.
constexpr std::uint32_t kModelGraph = 7;
constexpr std::uint32_t kGraphInitializer = 5;
constexpr std::uint32_t kTensorDims = 1, kTensorName = 8, kTensorRawData = 9, kTensorExternalData = 13,
                        kTensorDataLocation = 14;
constexpr std::uint64_t kExternalLocation = 1;  // TensorProto.DataLocation.EXTERNAL

void append_varint(std::string& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void append_tag(std::string& out, std::uint32_t field, Type type) {
  append_varint(out, (static_cast<std::uint64_t>(field) << 3) | type);
}

void append_bytes(std::string& out, std::uint32_t field, std::string_view bytes) {
  append_tag(out, field, Type::kLengthDelimited);
  append_varint(out, bytes.size());
  out.append(bytes);
}

std::string_view span_of(const std::uint8_t* begin, const std::uint8_t* end) {
  return {reinterpret_cast<const char*>(begin), static_cast<std::size_t>(end - begin)};
}

const std::uint8_t* bytes_of(std::string_view s) { return reinterpret_cast<const std::uint8_t*>(s.data()); }

InitializerBytes read_initializer(std::string_view tensor, const std::string& origin) {
  InitializerBytes init;
  init.tensor = tensor;
  WireReader r(bytes_of(tensor), bytes_of(tensor) + tensor.size(), &origin);
  while (!r.done()) {
    std::uint32_t field;
    Type type;
    r.next_field(field, type);
    if (field == kTensorName && type == Type::kLengthDelimited) {
      init.name = std::string(r.read_bytes());
    } else if (field == kTensorDims && type == Type::kVarint) {
      init.dims.push_back(static_cast<std::int64_t>(r.read_varint()));
    } else if (field == kTensorDims && type == Type::kLengthDelimited) {  // packed
      WireReader packed = r.read_message();
      while (!packed.done()) init.dims.push_back(static_cast<std::int64_t>(packed.read_varint()));
    } else {
      r.skip(type);
    }
  }
  return init;
}

void append_entry(std::string& out, std::string_view key, std::string_view value) {
  std::string entry;
  append_bytes(entry, 1, key);
  append_bytes(entry, 2, value);
  append_bytes(out, kTensorExternalData, entry);
}

// The TensorProto with its raw_data replaced by a reference to where those bytes lie in the
// source file; the tensor as it is when it has no raw_data this large.
std::string_view referenced(const InitializerBytes& init, const JoinOptions& options, std::string& scratch,
                            const std::string& origin) {
  if (options.self_location.empty()) return init.tensor;
  const std::uint8_t* begin = bytes_of(init.tensor);
  WireReader r(begin, begin + init.tensor.size(), &origin);
  std::string_view raw;
  bool located = false;
  scratch.clear();
  while (!r.done()) {
    const std::uint8_t* field_begin = r.position();
    std::uint32_t field;
    Type type;
    r.next_field(field, type);
    if (field == kTensorRawData && type == Type::kLengthDelimited) {
      raw = r.read_bytes();
      continue;
    }
    if (field == kTensorDataLocation) located = true;
    r.skip(type);
    scratch.append(span_of(field_begin, r.position()));
  }
  const char* source_end = options.source.data() + options.source.size();
  if (located || raw.size() < options.reference_min_bytes || raw.data() < options.source.data() ||
      raw.data() + raw.size() > source_end)
    return init.tensor;
  append_entry(scratch, "location", options.self_location);
  append_entry(scratch, "offset", std::to_string(raw.data() - options.source.data()));
  append_entry(scratch, "length", std::to_string(raw.size()));
  append_tag(scratch, kTensorDataLocation, Type::kVarint);
  append_varint(scratch, kExternalLocation);
  return scratch;
}

}  // namespace

SplitModel split_model(std::string_view bytes, const std::string& origin) {
  SplitModel split;
  WireReader model(bytes_of(bytes), bytes_of(bytes) + bytes.size(), &origin);
  std::string skeleton_bytes, graph_bytes;
  bool has_graph = false;
  while (!model.done()) {
    const std::uint8_t* field_begin = model.position();
    std::uint32_t field;
    Type type;
    model.next_field(field, type);
    if (field != kModelGraph || type != Type::kLengthDelimited) {
      model.skip(type);
      skeleton_bytes.append(span_of(field_begin, model.position()));
      continue;
    }
    has_graph = true;
    WireReader graph = model.read_message();
    while (!graph.done()) {
      const std::uint8_t* g_begin = graph.position();
      std::uint32_t g_field;
      Type g_type;
      graph.next_field(g_field, g_type);
      if (g_field == kGraphInitializer && g_type == Type::kLengthDelimited) {
        split.initializers.push_back(read_initializer(graph.read_bytes(), origin));
        continue;
      }
      graph.skip(g_type);
      graph_bytes.append(span_of(g_begin, graph.position()));
    }
  }
  if (!has_graph) fail(ErrorCode::kParse, origin, "not an ONNX ModelProto with a graph");
  append_bytes(skeleton_bytes, kModelGraph, graph_bytes);
  if (!split.skeleton.ParseFromString(skeleton_bytes)) fail(ErrorCode::kParse, origin, "not a valid ONNX ModelProto");
  return split;
}

std::string join_model(const ::onnx::ModelProto& skeleton, std::span<const InitializerBytes> initializers,
                       const JoinOptions& options, const std::string& origin) {
  std::string graph;
  if (!skeleton.graph().SerializeToString(&graph))
    fail(ErrorCode::kParse, origin, "the rewritten graph cannot be serialized");
  std::string scratch;
  for (const auto& init : initializers) append_bytes(graph, kGraphInitializer, referenced(init, options, scratch, origin));
  ::onnx::ModelProto rest = skeleton;
  rest.clear_graph();
  std::string out;
  if (!rest.SerializeToString(&out)) fail(ErrorCode::kParse, origin, "the rewritten model cannot be serialized");
  append_bytes(out, kModelGraph, graph);
  return out;
}

}  // namespace ogai::onnx
