// Reading an ONNX graph's interface without loading its weights.
//
// read_graph_info() lists a model's inputs, outputs, initializer names, op types and its
// com.microsoft attention nodes' inputs and integer attributes. It works on
//   - binary `.onnx` files, with embedded initializers (up to protobuf's 2 GB limit) or external
//     data: the file is memory-mapped and walked at the protobuf wire level, so initializer bytes
//     are skipped, never copied or decoded;
//   - text-format `.onnx.textproto` ModelProtos (see textproto.h).
// It does not check that the graph is runnable (ONNX Runtime does that) and does not open
// external-data files (it lists their locations).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace ogai::onnx {

// One dimension of a declared shape: a fixed size, a symbol ("batch_size"), or unknown.
struct Dim {
  std::int64_t value = -1;  // >= 0 when fixed
  std::string symbol;       // non-empty when symbolic
  bool is_fixed() const { return value >= 0; }
  bool operator==(const Dim&) const = default;
};

// A graph input or output. Non-tensor values (sequence, map, optional) have kind != kTensor.
struct ValueInfo {
  enum class Kind { kTensor, kSequence, kMap, kOptional, kSparseTensor, kUnknown };
  std::string name;
  Kind kind = Kind::kTensor;
  DataType dtype = DataType::kUndefined;  // element type for tensors
  bool has_shape = false;                 // false: rank unknown
  std::vector<Dim> shape;                 // valid when has_shape
  int rank() const { return has_shape ? static_cast<int>(shape.size()) : -1; }
};

struct Initializer {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::vector<std::int64_t> dims;
  bool external = false;        // stored in an external-data file
  std::string external_location;  // relative path from the model's directory, when external
};

// A com.microsoft attention node (GroupQueryAttention, MultiHeadAttention, PagedAttention,
// SparseAttention, Attention) of the main graph: its inputs and integer attributes (num_heads,
// kv_num_heads, local_window_size, ...), so a package's facts can be checked against the graph.
struct AttentionNode {
  std::string op_type;
  std::vector<std::string> inputs;                      // in order; "" for an omitted optional input
  std::map<std::string, std::int64_t> int_attributes;  // attributes with an integer value
};

struct GraphInfo {
  std::int64_t ir_version = 0;
  std::string producer_name;
  std::map<std::string, std::int64_t> opset_imports;  // domain ("" = ai.onnx) -> version
  std::vector<ValueInfo> inputs;   // graph inputs, initializer-backed ones included, in order
  std::vector<ValueInfo> outputs;  // in order
  std::vector<Initializer> initializers;
  std::map<std::string, int> op_types;  // "domain:op_type" (domain empty for ai.onnx) -> count
  std::size_t node_count = 0;
  std::vector<AttentionNode> attention_nodes;  // main graph only (not subgraphs), in node order

  const ValueInfo* find_input(const std::string& name) const;
  const ValueInfo* find_output(const std::string& name) const;
  const Initializer* find_initializer(const std::string& name) const;
  bool is_initializer(const std::string& name) const { return find_initializer(name) != nullptr; }
  // Inputs that are not backed by an initializer (what a caller must feed).
  std::vector<const ValueInfo*> runtime_inputs() const;
  // The distinct external-data locations the initializers reference.
  std::vector<std::string> external_data_files() const;
};

// True when `path` names a text-format graph (ends in ".textproto" or ".pbtxt").
bool is_textproto_path(const std::filesystem::path& path);

// Reads the interface of the model at `path` (binary or text format, chosen by file name).
// Throws ogai::Error naming the path and the problem (missing file, not a ModelProto, truncated).
GraphInfo read_graph_info(const std::filesystem::path& path);

// Same, for a binary ModelProto already in memory; `origin` names it in errors.
GraphInfo read_graph_info_from_bytes(const std::uint8_t* data, std::size_t size,
                                     const std::string& origin);

}  // namespace ogai::onnx
