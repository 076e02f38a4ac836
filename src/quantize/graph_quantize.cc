#include "quantize/graph_quantize.h"

#include <fmt/format.h>

#include <set>

#include "base/error.h"
#include "base/file.h"
#include "base/half.h"
#include "quantize/data_writer.h"

namespace ogai::quantize {
namespace {

using Graph = ::onnx::GraphProto;
using Node = ::onnx::NodeProto;

constexpr const char* kMsDomain = "com.microsoft";

// The quantized tensors one decision's node reads.
struct QuantNames {
  std::string codes, scales, zero_points;  // zero_points empty when symmetric
};

void add_int(Node& node, const char* name, std::int64_t value) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(value);
}

std::string unique_name(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  for (int i = 1; !taken.insert(name).second; ++i) name = fmt::format("{}_{}", base, i);
  return name;
}

Node rewritten_node(const Node& old, const NodeDecision& d, const QuantNames& names,
                    const QuantizeOptions& options) {
  const BlockQuantOptions o = block_options(d, options);
  Node node;
  node.set_name(old.name());
  node.set_domain(kMsDomain);
  node.set_doc_string(old.doc_string());
  for (const auto& out : old.output()) node.add_output(out);
  if (d.kind == NodeDecision::Kind::kMatMul) {
    node.set_op_type("MatMulNBits");
    node.add_input(old.input(0));
    node.add_input(names.codes);
    node.add_input(names.scales);
    if (!names.zero_points.empty()) node.add_input(names.zero_points);
    add_int(node, "K", d.k);
    add_int(node, "N", d.n);
    add_int(node, "bits", o.bits);
    add_int(node, "block_size", o.block_size);
    add_int(node, "accuracy_level", options.accuracy_level);
  } else {
    node.set_op_type("GatherBlockQuantized");
    node.add_input(names.codes);
    node.add_input(old.input(1));
    node.add_input(names.scales);
    if (!names.zero_points.empty()) node.add_input(names.zero_points);
    add_int(node, "gather_axis", 0);
    add_int(node, "quantize_axis", 1);
    add_int(node, "block_size", o.block_size);
    add_int(node, "bits", o.bits);
  }
  return node;
}

void collect_inputs(const Graph& graph, std::set<std::string>& used) {
  for (const auto& node : graph.node()) {
    for (const auto& in : node.input()) used.insert(in);
    for (const auto& a : node.attribute()) {
      if (a.has_g()) collect_inputs(a.g(), used);
      for (const auto& g : a.graphs()) collect_inputs(g, used);
    }
  }
  for (const auto& out : graph.output()) used.insert(out.name());
}

// Applies the plan's node rewrites to the skeleton graph; returns the names of the quantized
// tensors per decision (index-aligned with plan.decisions; empty names for skipped ones).
std::vector<QuantNames> rewrite_nodes(Graph& graph, const GraphPlan& plan,
                                      const std::set<std::string>& init_names,
                                      const QuantizeOptions& options) {
  std::set<std::string> taken = init_names;
  for (const auto& node : graph.node())
    for (const auto& out : node.output()) taken.insert(out);
  std::vector<QuantNames> names(plan.decisions.size());
  std::set<int> transposes;
  for (std::size_t i = 0; i < plan.decisions.size(); ++i) {
    const NodeDecision& d = plan.decisions[i];
    if (!d.quantize) continue;
    const std::string base = d.weight + (d.kind == NodeDecision::Kind::kGather ? "_gather"
                                         : d.transposed                        ? "_t"
                                                                               : "");
    names[i].codes = unique_name(base + fmt::format("_Q{}", block_options(d, options).bits), taken);
    names[i].scales = unique_name(base + "_scales", taken);
    if (!options.block.symmetric) names[i].zero_points = unique_name(base + "_zero_points", taken);
    graph.mutable_node(d.node)->CopyFrom(rewritten_node(graph.node(d.node), d, names[i], options));
    if (d.transposed) transposes.insert(d.transpose_node);
  }
  // Drop the Transposes whose outputs nothing reads any more.
  std::set<std::string> used;
  collect_inputs(graph, used);
  std::vector<Node> kept;
  for (int i = 0; i < graph.node_size(); ++i)
    if (!transposes.count(i) || used.count(graph.node(i).output(0))) kept.push_back(graph.node(i));
  graph.clear_node();
  for (auto& n : kept) *graph.add_node() = std::move(n);
  return names;
}

void ensure_ms_opset(::onnx::ModelProto& model) {
  for (const auto& op : model.opset_import())
    if (op.domain() == kMsDomain) return;
  auto* op = model.add_opset_import();
  op->set_domain(kMsDomain);
  op->set_version(1);
}

std::span<const std::uint8_t> bytes_of(const std::vector<float>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(float)};
}

// Writes the quantized tensors of decision `d` from the weight's bytes.
std::uint64_t write_quantized(DataWriter& writer, Graph& graph, const NodeDecision& d,
                              const QuantNames& names, std::span<const std::uint8_t> weight,
                              const QuantizeOptions& options) {
  const std::uint64_t before = writer.bytes_written();
  const BlockQuantOptions block = block_options(d, options);
  QuantizedRows q = d.transposed || d.kind == NodeDecision::Kind::kGather
                        ? quantize_rows(weight.data(), d.dtype, d.n, d.k, block)
                        : quantize_columns(weight.data(), d.dtype, d.k, d.n, block);
  const bool gather = d.kind == NodeDecision::Kind::kGather;
  const std::int64_t blob = block.block_bytes();
  std::vector<std::int64_t> code_dims = gather ? std::vector<std::int64_t>{q.rows, q.cols * block.bits / 8}
                                               : std::vector<std::int64_t>{q.rows, q.blocks, blob};
  *graph.add_initializer() = writer.write(names.codes, DataType::kUint8, code_dims, q.codes);
  std::vector<std::int64_t> scale_dims = gather ? std::vector<std::int64_t>{q.rows, q.blocks}
                                                : std::vector<std::int64_t>{q.rows * q.blocks};
  if (d.dtype == DataType::kFloat16) {
    std::vector<std::uint16_t> half(q.scales.size());
    for (std::size_t i = 0; i < half.size(); ++i) half[i] = float_to_half(q.scales[i]);
    *graph.add_initializer() =
        writer.write(names.scales, DataType::kFloat16, scale_dims,
                     {reinterpret_cast<const std::uint8_t*>(half.data()), half.size() * 2});
  } else {
    *graph.add_initializer() =
        writer.write(names.scales, DataType::kFloat32, scale_dims, bytes_of(q.scales));
  }
  if (!names.zero_points.empty()) {
    std::vector<std::int64_t> zp_dims =
        gather ? std::vector<std::int64_t>{q.rows, q.zero_point_bytes_per_row()}
               : std::vector<std::int64_t>{q.rows * q.zero_point_bytes_per_row()};
    *graph.add_initializer() =
        writer.write(names.zero_points, DataType::kUint8, zp_dims, q.zero_points);
  }
  return writer.bytes_written() - before;
}

void drop_unused_graph_inputs(Graph& graph, const std::set<std::string>& dropped) {
  std::vector<::onnx::ValueInfoProto> inputs;
  for (const auto& in : graph.input())
    if (!dropped.count(in.name())) inputs.push_back(in);
  if (inputs.size() == static_cast<std::size_t>(graph.input_size())) return;
  graph.clear_input();
  for (auto& in : inputs) *graph.add_input() = std::move(in);
}

}  // namespace

GraphPlan plan_model(SourceModel& source, const QuantizeOptions& options) {
  std::map<std::string, WeightInfo> inits;
  for (const auto& t : source.initializers())
    inits[t.meta.name()] = {t.dtype, {t.meta.dims().begin(), t.meta.dims().end()}};
  return plan_graph(source.skeleton().graph(), inits, options);
}

void quantize_model(SourceModel& source, const QuantizeOptions& options,
                    const std::filesystem::path& out_model, GraphReport& report,
                    const Progress& progress) {
  ::onnx::ModelProto& model = source.skeleton();
  Graph& graph = *model.mutable_graph();
  std::set<std::string> init_names;
  std::uint64_t total = 0;
  for (const auto& t : source.initializers()) init_names.insert(t.meta.name()), total += t.length;
  const std::vector<QuantNames> names = rewrite_nodes(graph, report.plan, init_names, options);
  ensure_ms_opset(model);
  std::set<std::string> used;
  collect_inputs(graph, used);

  const std::string location = out_model.filename().string() + ".data";
  DataWriter writer(out_model.parent_path() / location, location);
  std::set<std::string> dropped;
  std::uint64_t done = 0;
  for (const auto& t : source.initializers()) {
    const std::string& name = t.meta.name();
    const std::span<const std::uint8_t> bytes = source.data(t);
    const std::uint64_t expected =
        static_cast<std::uint64_t>(t.element_count()) * dtype_size(t.dtype);
    for (std::size_t i = 0; i < report.plan.decisions.size(); ++i) {
      const NodeDecision& d = report.plan.decisions[i];
      if (!d.quantize || d.weight != name) continue;
      if (bytes.size() != expected)
        fail(ErrorCode::kInvalidPackage, source.path().string(),
             "initializer {} holds {} bytes, its shape needs {}", name, bytes.size(), expected);
      report.weight_bytes_before += bytes.size();
      report.weight_bytes_after += write_quantized(writer, graph, d, names[i], bytes, options);
    }
    if (used.count(name) && t.typed) {
      *graph.add_initializer() = t.meta;  // small typed-field tensors are copied as stored
    } else if (used.count(name)) {
      *graph.add_initializer() =
          writer.write(name, t.dtype, {t.meta.dims().begin(), t.meta.dims().end()}, bytes, &t.meta);
    } else {
      dropped.insert(name);
    }
    report.bytes_before += bytes.size();
    source.release();
    done += t.length;
    if (progress) progress(done, total);
  }
  drop_unused_graph_inputs(graph, dropped);
  writer.finish();
  report.bytes_after = writer.bytes_written();
  std::string serialized;
  if (!model.SerializeToString(&serialized))
    fail(ErrorCode::kRuntime, out_model.string(), "the rewritten model cannot be serialized");
  write_file(out_model, serialized);
  report.rewritten = true;
}

}  // namespace ogai::quantize
