#include "onnx/logits_cut.h"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <set>
#include <vector>

#include "base/error.h"
#include "base/file.h"
#include "onnx/graph_info.h"
#include "onnx/textproto.h"

namespace ogai::onnx {
namespace {

constexpr const char* kPositionsSymbol = "ogai_logits_positions";
constexpr int kMaxChain = 8;  // element-wise steps between the head and the logits
constexpr int kMaxWeightDepth = 4;

// What the rewrite needs to know about the graph's tensors.
class GraphIndex {
 public:
  GraphIndex(const ::onnx::GraphProto& graph, std::span<const InitializerBytes> initializers) : graph_(graph) {
    for (const auto& init : initializers) initializers_[init.name] = &init.dims;
    for (const auto& in : graph.input()) names_.insert(in.name());
    for (const auto& out : graph.output()) outputs_.insert(out.name());
    for (int i = 0; i < graph.node_size(); ++i) {
      for (const auto& out : graph.node(i).output()) producer_[out] = i, names_.insert(out);
      count_uses(graph.node(i));
    }
    for (const auto& [name, _] : initializers_) names_.insert(name);
  }

  const ::onnx::NodeProto* producer(const std::string& tensor) const {
    auto it = producer_.find(tensor);
    return it == producer_.end() ? nullptr : &graph_.node(it->second);
  }
  int producer_index(const std::string& tensor) const { return producer_.at(tensor); }
  int uses(const std::string& tensor) const {
    auto it = uses_.find(tensor);
    return it == uses_.end() ? 0 : it->second;
  }
  bool is_output(const std::string& tensor) const { return outputs_.count(tensor) > 0; }
  bool taken(const std::string& name) const { return names_.count(name) > 0; }
  const std::vector<std::int64_t>* initializer_dims(const std::string& tensor) const {
    auto it = initializers_.find(tensor);
    return it == initializers_.end() ? nullptr : it->second;
  }

  // Computed from initializers and Constant nodes only (never from a graph input).
  bool is_constant(const std::string& tensor, int depth = 0) const {
    if (initializer_dims(tensor) != nullptr) return true;
    const ::onnx::NodeProto* node = producer(tensor);
    if (node == nullptr || depth > kMaxWeightDepth || !node->domain().empty()) return false;
    if (node->op_type() == "Constant") return true;
    static const std::set<std::string> kWeightOps = {"Transpose", "Cast", "Identity", "DequantizeLinear"};
    if (kWeightOps.count(node->op_type()) == 0) return false;
    for (const auto& in : node->input())
      if (!in.empty() && !is_constant(in, depth + 1)) return false;
    return true;
  }

  // A constant that broadcasts over the last axis only: every dim but the last is 1.
  bool is_row_constant(const std::string& tensor) const {
    const std::vector<std::int64_t>* dims = initializer_dims(tensor);
    std::vector<std::int64_t> constant_dims;
    if (dims == nullptr) {
      const ::onnx::NodeProto* node = producer(tensor);
      if (node == nullptr || node->op_type() != "Constant" || !node->domain().empty()) return false;
      bool found = false;
      for (const auto& a : node->attribute()) {
        if (a.name() == "value" && a.has_t()) constant_dims.assign(a.t().dims().begin(), a.t().dims().end()), found = true;
        if (a.name() == "value_float" || a.name() == "value_int") found = true;  // scalars
      }
      if (!found) return false;
      dims = &constant_dims;
    }
    for (std::size_t i = 0; i + 1 < dims->size(); ++i)
      if ((*dims)[i] != 1) return false;
    return true;
  }

 private:
  void count_uses(const ::onnx::NodeProto& node) {
    for (const auto& in : node.input()) ++uses_[in];
    for (const auto& a : node.attribute()) {  // subgraphs may read outer tensors by name
      if (a.has_g()) count_graph(a.g());
      for (const auto& g : a.graphs()) count_graph(g);
    }
  }
  void count_graph(const ::onnx::GraphProto& g) {
    for (const auto& n : g.node()) count_uses(n);
  }

  const ::onnx::GraphProto& graph_;
  std::map<std::string, const std::vector<std::int64_t>*> initializers_;
  std::map<std::string, int> producer_;
  std::map<std::string, int> uses_;
  std::set<std::string> outputs_, names_;
};

bool is_head(const ::onnx::NodeProto& node, const GraphIndex& index) {
  if (node.domain().empty() && node.op_type() == "MatMul")
    return node.input_size() == 2 && index.is_constant(node.input(1));
  if (node.domain() == "com.microsoft" && node.op_type() == "MatMulNBits")
    return node.input_size() >= 2 && index.is_constant(node.input(1));
  return false;
}

// The input a row-wise step carries the chain through; -1 when the node is not such a step.
int chain_operand(const ::onnx::NodeProto& node, const GraphIndex& index) {
  if (!node.domain().empty()) return -1;
  static const std::set<std::string> kUnary = {"Identity", "Cast", "Tanh", "Sigmoid", "Neg"};
  static const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div"};
  if (kUnary.count(node.op_type()) > 0) return node.input_size() == 1 ? 0 : -1;
  if (kBinary.count(node.op_type()) == 0 || node.input_size() != 2) return -1;
  for (int side = 0; side < 2; ++side)
    if (index.is_row_constant(node.input(1 - side)) && !index.is_constant(node.input(side))) return side;
  return -1;
}

std::string describe(const ::onnx::NodeProto& node) {
  return fmt::format("{} node '{}'", node.domain().empty() ? node.op_type() : node.domain() + ":" + node.op_type(),
                     node.name());
}

::onnx::NodeProto int64_constant(const std::string& output, std::int64_t value) {
  ::onnx::NodeProto node;
  node.set_op_type("Constant");
  node.set_name(output);
  node.add_output(output);
  auto* attr = node.add_attribute();
  attr->set_name("value");
  attr->set_type(::onnx::AttributeProto::TENSOR);
  auto* t = attr->mutable_t();
  t->set_data_type(::onnx::TensorProto::INT64);
  t->add_dims(1);
  t->add_int64_data(value);
  return node;
}

::onnx::NodeProto node_of(const std::string& op, std::vector<std::string> inputs, const std::string& output) {
  ::onnx::NodeProto node;
  node.set_op_type(op);
  node.set_name(output);
  for (auto& in : inputs) node.add_input(std::move(in));
  node.add_output(output);
  return node;
}

// The head node (index into graph.node) and the tensors between it and the logits, or why not.
struct Pattern {
  int head = -1;
  std::set<std::string> rewritten;  // the head's output .. the logits
  std::string why_not;
};

Pattern declined(std::string why) {
  Pattern p;
  p.why_not = std::move(why);
  return p;
}

Pattern find_pattern(const ::onnx::GraphProto& graph, const GraphIndex& index, const std::string& logits) {
  Pattern p;
  const ::onnx::ValueInfoProto* out = nullptr;
  for (const auto& o : graph.output())
    if (o.name() == logits) out = &o;
  if (out == nullptr) return declined(fmt::format("'{}' is not a graph output", logits));
  const auto& type = out->type();
  if (!type.has_tensor_type() || !type.tensor_type().has_shape() || type.tensor_type().shape().dim_size() != 3)
    return declined(fmt::format("'{}' is not declared [batch, sequence, vocab]", logits));
  if (type.tensor_type().shape().dim(1).has_dim_value())
    return declined(fmt::format("'{}' has a fixed sequence dimension", logits));
  if (index.uses(logits) > 0) return declined(fmt::format("'{}' is also read by other nodes", logits));
  std::string tensor = logits;
  for (int step = 0; step <= kMaxChain; ++step) {
    const ::onnx::NodeProto* node = index.producer(tensor);
    if (node == nullptr) return declined(fmt::format("'{}' is not computed by a node", tensor));
    p.rewritten.insert(tensor);
    if (is_head(*node, index)) {
      p.head = index.producer_index(tensor);
      return p;
    }
    const int operand = chain_operand(*node, index);
    if (operand < 0)
      return declined(fmt::format("the logits come from {}, not a MatMul or MatMulNBits over constant weights "
                                  "followed by element-wise steps",
                                  describe(*node)));
    tensor = node->input(operand);
    if (index.is_output(tensor) || index.uses(tensor) != 1)
      return declined(fmt::format("'{}' (before the logits) is also used elsewhere", tensor));
  }
  return declined(fmt::format("more than {} element-wise steps between the head and '{}'", kMaxChain, logits));
}

std::int64_t default_opset(const ::onnx::ModelProto& model) {
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") return o.version();
  return 0;
}

// Inserts the new nodes before the head (the graph's node order stays topological).
void insert_before(::onnx::GraphProto& graph, int head, std::vector<::onnx::NodeProto> added) {
  google::protobuf::RepeatedPtrField<::onnx::NodeProto> nodes;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (i == head)
      for (auto& n : added) nodes.Add()->Swap(&n);
    nodes.Add()->Swap(graph.mutable_node(i));
  }
  graph.mutable_node()->Swap(&nodes);
}

void add_keep_input(::onnx::GraphProto& graph) {
  auto* in = graph.add_input();
  in->set_name(kLogitsKeepInput);
  auto* tensor = in->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(::onnx::TensorProto::INT64);
  tensor->mutable_shape()->add_dim()->set_dim_value(1);
}

void relabel(::onnx::GraphProto& graph, const std::string& logits, const std::set<std::string>& rewritten) {
  for (auto& o : *graph.mutable_output())
    if (o.name() == logits) o.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_param(kPositionsSymbol);
  auto* infos = graph.mutable_value_info();
  for (int i = infos->size() - 1; i >= 0; --i)
    if (rewritten.count(infos->Get(i).name()) > 0) infos->DeleteSubrange(i, 1);
}

}  // namespace

std::string rewrite_logits_cut(::onnx::ModelProto& model, std::span<const InitializerBytes> initializers,
                               const std::string& logits_output) {
  if (default_opset(model) < 10)
    return fmt::format("the graph imports ai.onnx opset {} (Slice takes its bounds as inputs from 10)",
                       default_opset(model));
  ::onnx::GraphProto& graph = *model.mutable_graph();
  const GraphIndex index(graph, initializers);
  Pattern p = find_pattern(graph, index, logits_output);
  if (p.head < 0) return p.why_not;
  const std::string prefix = "ogai_logits_cut/";
  const std::string start = prefix + "start", ends = prefix + "ends", axes = prefix + "axes", hidden = prefix + "hidden";
  for (const auto* name : {&start, &ends, &axes, &hidden})
    if (index.taken(*name)) return fmt::format("the graph already names a tensor '{}'", *name);
  if (index.taken(kLogitsKeepInput)) return fmt::format("the graph already names a tensor '{}'", kLogitsKeepInput);
  const std::string head_input = graph.node(p.head).input(0);
  std::vector<::onnx::NodeProto> added;
  added.push_back(int64_constant(ends, std::numeric_limits<std::int64_t>::max()));
  added.push_back(int64_constant(axes, 1));
  added.push_back(node_of("Neg", {kLogitsKeepInput}, start));
  added.push_back(node_of("Slice", {head_input, start, ends, axes}, hidden));
  graph.mutable_node(p.head)->set_input(0, hidden);
  insert_before(graph, p.head, std::move(added));
  add_keep_input(graph);
  relabel(graph, logits_output, p.rewritten);
  return "";
}

LogitsCut cut_logits(const std::filesystem::path& path, const std::string& logits_output) {
  const std::string origin = path.string();
  std::string text_bytes;
  std::optional<MappedFile> file;
  std::string_view bytes;
  JoinOptions join;
  if (is_textproto_path(path)) {
    text_bytes = textproto_to_binary(path);
    bytes = text_bytes;
  } else {
    file.emplace(path);
    bytes = file->view();
    join.self_location = path.filename().string();
    join.source = bytes;
  }
  SplitModel split = split_model(bytes, origin);
  LogitsCut cut;
  cut.declined = rewrite_logits_cut(split.skeleton, split.initializers, logits_output);
  if (cut.declined.empty()) cut.model = join_model(split.skeleton, split.initializers, join, origin);
  return cut;
}

}  // namespace ogai::onnx
