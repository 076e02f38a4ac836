#include "quantize/graph_plan.h"

#include <fnmatch.h>

#include <fmt/format.h>

#include <set>

namespace ogai::quantize {
namespace {

using Graph = ::onnx::GraphProto;
using Node = ::onnx::NodeProto;

struct GraphIndex {
  std::map<std::string, int> producer;                // value -> node
  std::map<std::string, std::vector<int>> consumers;  // value -> nodes
  std::set<std::string> graph_inputs, logits_outputs;
  std::int64_t vocab = -1;  // last dim of a logits output, when fixed
};

GraphIndex index_graph(const Graph& graph) {
  GraphIndex index;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto& out : graph.node(i).output()) index.producer[out] = i;
    for (const auto& in : graph.node(i).input()) index.consumers[in].push_back(i);
  }
  for (const auto& in : graph.input()) index.graph_inputs.insert(in.name());
  for (const auto& out : graph.output()) {
    if (out.name().find("logits") == std::string::npos) continue;
    index.logits_outputs.insert(out.name());
    const auto& shape = out.type().tensor_type().shape();
    if (shape.dim_size() > 0 && shape.dim(shape.dim_size() - 1).has_dim_value())
      index.vocab = shape.dim(shape.dim_size() - 1).dim_value();
  }
  return index;
}

std::string attribute_ints(const Node& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return fmt::format("{}", fmt::join(a.ints(), ","));
  return "";
}

std::int64_t attribute_int(const Node& node, const std::string& name, std::int64_t fallback) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

// True when a logits output is reached from `value` through nodes other than MatMul/Gemm.
bool reaches_logits(const GraphIndex& index, const Graph& graph, const std::string& value) {
  std::vector<std::string> todo{value};
  std::set<std::string> seen;
  while (!todo.empty()) {
    std::string v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    if (index.logits_outputs.count(v)) return true;
    auto it = index.consumers.find(v);
    if (it == index.consumers.end()) continue;
    for (int n : it->second) {
      const auto& op = graph.node(n).op_type();
      if (op == "MatMul" || op == "Gemm" || op == "MatMulNBits") continue;
      for (const auto& out : graph.node(n).output()) todo.push_back(out);
    }
  }
  return false;
}

std::string matched_pattern(const QuantizeOptions& options, const std::vector<std::string>& names) {
  for (const auto& pattern : options.exclude)
    for (const auto& name : names)
      if (!name.empty() && fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return pattern;
  return "";
}

bool float_weight(DataType dtype) {
  return dtype == DataType::kFloat32 || dtype == DataType::kFloat16;
}

// Checks the weight of `d` (already named) and fills k, n, dtype; returns the reason it is not
// quantizable, or "".
std::string weight_problem(NodeDecision& d, const std::map<std::string, WeightInfo>& inits) {
  auto it = inits.find(d.weight);
  if (it == inits.end()) return "its weight is not a constant initializer";
  const WeightInfo& w = it->second;
  if (w.dims.size() != 2)
    return fmt::format("weight {} has rank {}, not 2", d.weight, w.dims.size());
  if (!float_weight(w.dtype))
    return fmt::format("weight {} is {}, not float32 or float16", d.weight, dtype_name(w.dtype));
  d.dtype = w.dtype;
  const bool rows_are_n = d.transposed || d.kind == NodeDecision::Kind::kGather;
  d.k = rows_are_n ? w.dims[1] : w.dims[0];
  d.n = rows_are_n ? w.dims[0] : w.dims[1];
  if (d.k <= 0 || d.n <= 0) return fmt::format("weight {} is empty", d.weight);
  return "";
}

NodeDecision plan_matmul(const Graph& graph, int i, const GraphIndex& index,
                         const std::map<std::string, WeightInfo>& inits,
                         const QuantizeOptions& options) {
  const Node& node = graph.node(i);
  NodeDecision d;
  d.node = i;
  d.label = node.name().empty() ? node.output(0) : node.name();
  d.lm_head = reaches_logits(index, graph, node.output(0));
  if (node.input_size() != 2) return d.reason = "not a two-input MatMul", d;
  d.weight = node.input(1);
  if (inits.count(node.input(0))) return d.reason = "its A input is a constant too", d;
  if (!inits.count(d.weight)) {
    auto p = index.producer.find(d.weight);
    if (p != index.producer.end() && graph.node(p->second).op_type() == "Transpose" &&
        graph.node(p->second).input_size() == 1 && inits.count(graph.node(p->second).input(0))) {
      const Node& t = graph.node(p->second);
      if (attribute_ints(t, "perm") != "1,0" && !attribute_ints(t, "perm").empty())
        return d.reason = "its weight is a Transpose with perm other than [1, 0]", d;
      d.transposed = true;
      d.transpose_node = p->second;
      d.weight = t.input(0);
    }
  }
  d.reason = weight_problem(d, inits);
  if (!d.reason.empty()) return d;
  if (auto p = matched_pattern(options, {node.name(), node.output(0), d.weight}); !p.empty())
    return d.reason = fmt::format("excluded by --exclude {}", p), d;
  if (d.lm_head && !options.lm_head) return d.reason = "the lm-head (--no-lm-head)", d;
  d.quantize = true;
  return d;
}

bool is_embedding_gather(const Graph& graph, int i, const GraphIndex& index,
                         const std::map<std::string, WeightInfo>& inits) {
  const Node& node = graph.node(i);
  if (node.op_type() != "Gather" || !node.domain().empty() || node.input_size() != 2) return false;
  auto it = inits.find(node.input(0));
  if (it == inits.end() || it->second.dims.size() != 2 || !index.graph_inputs.count(node.input(1)))
    return false;
  return node.input(1).find("input_ids") != std::string::npos || it->second.dims[0] == index.vocab;
}

NodeDecision plan_gather(const Graph& graph, int i, const std::map<std::string, WeightInfo>& inits,
                         const QuantizeOptions& options) {
  const Node& node = graph.node(i);
  NodeDecision d;
  d.kind = NodeDecision::Kind::kGather;
  d.embedding = true;
  d.node = i;
  d.label = node.name().empty() ? node.output(0) : node.name();
  d.weight = node.input(0);
  d.reason = weight_problem(d, inits);
  if (!d.reason.empty()) return d;
  if (attribute_int(node, "axis", 0) != 0) return d.reason = "a Gather on an axis other than 0", d;
  if (d.k % options.block.block_size != 0)
    return d.reason = fmt::format("the embedding width {} is not a multiple of the block size {}",
                                  d.k, options.block.block_size),
           d;
  if (auto p = matched_pattern(options, {node.name(), node.output(0), d.weight}); !p.empty())
    return d.reason = fmt::format("excluded by --exclude {}", p), d;
  if (!options.embeddings) return d.reason = "the token embedding (pass --embeddings)", d;
  d.quantize = true;
  return d;
}

}  // namespace

std::size_t GraphPlan::quantized() const {
  std::size_t n = 0;
  for (const auto& d : decisions) n += d.quantize;
  return n;
}

GraphPlan plan_graph(const Graph& graph, const std::map<std::string, WeightInfo>& initializers,
                     const QuantizeOptions& options) {
  const GraphIndex index = index_graph(graph);
  GraphPlan plan;
  for (int i = 0; i < graph.node_size(); ++i) {
    const Node& node = graph.node(i);
    if (node.op_type() == "MatMul" && node.domain().empty())
      plan.decisions.push_back(plan_matmul(graph, i, index, initializers, options));
    else if (is_embedding_gather(graph, i, index, initializers))
      plan.decisions.push_back(plan_gather(graph, i, initializers, options));
  }
  return plan;
}

}  // namespace ogai::quantize

namespace ogai::quantize {

BlockQuantOptions block_options(const NodeDecision& d, const QuantizeOptions& options) {
  BlockQuantOptions b = options.block;
  b.bits = options.bits;
  if (d.lm_head && options.lm_head_bits) b.bits = options.lm_head_bits;
  if (d.embedding && options.embedding_bits) b.bits = options.embedding_bits;
  return b;
}

}  // namespace ogai::quantize
