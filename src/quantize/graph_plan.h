// Which nodes of a graph `ogai quantize` rewrites, and why the others stay.
//
// A MatMul is eligible when its B input is a constant 2-D float32/float16 initializer [K, N]
// (directly, or through a Transpose perm [1, 0] of one, as tied lm-heads are exported) and its A
// input is not a constant. The lm-head (a MatMul from which a graph output named *logits* is
// reached without another MatMul) is rewritten only with `lm_head` (the default, at 8 bits); the token embedding (a
// Gather of a 2-D float table indexed by a graph input, with vocab rows or fed by *input_ids*)
// only with `embeddings`. `exclude` patterns (fnmatch globs) match a node's name, its output or
// its weight's name. Subgraphs (If/Loop bodies) are left as they are.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "base/dtype.h"
#include "quantize/block_quant.h"

namespace ogai::quantize {

struct QuantizeOptions {
  int bits = 4;
  BlockQuantOptions block;
  int accuracy_level = 4;
  std::vector<std::string> exclude;
  bool lm_head = true;     // the default package has an 8-bit lm-head (docs/quantize.md)
  bool embeddings = false;
  int lm_head_bits = 8;    // the lm-head's bits (4 or 8); 0 = `bits`
  int embedding_bits = 0;  // the token embedding's bits (4 or 8); 0 = `bits`
};

// The facts of an initializer the planner needs.
struct WeightInfo {
  DataType dtype = DataType::kUndefined;
  std::vector<std::int64_t> dims;
};

struct NodeDecision {
  enum class Kind { kMatMul, kGather };
  Kind kind = Kind::kMatMul;
  int node = -1;            // index in graph.node
  std::string label;        // node name, or its first output when unnamed
  std::string weight;       // the initializer (for a transposed B: the table it transposes)
  bool transposed = false;  // B = Transpose(weight): the weight's rows are MatMulNBits' rows
  int transpose_node = -1;  // that Transpose, when transposed
  bool lm_head = false, embedding = false;
  bool quantize = false;
  std::string reason;         // why not, when !quantize
  std::int64_t k = 0, n = 0;  // MatMul: B is [k, n]; Gather: the table is [n rows, k cols]
  DataType dtype = DataType::kUndefined;
};

struct GraphPlan {
  std::vector<NodeDecision> decisions;  // every MatMul and every embedding Gather, in node order
  std::size_t quantized() const;
  bool changes_graph() const { return quantized() > 0; }
};

GraphPlan plan_graph(const ::onnx::GraphProto& graph,
                     const std::map<std::string, WeightInfo>& initializers,
                     const QuantizeOptions& options);

// The block options decision `d` is quantized with: `options.block` at `options.bits`, or the
// lm-head's / embedding's own bits when set.
BlockQuantOptions block_options(const NodeDecision& d, const QuantizeOptions& options);

}  // namespace ogai::quantize
