// ONNX admission R1–R3 and external-data confinement; R4–R8 in admission_state.cc.
#include "metadata/admission.h"

#include <fmt/format.h>

#include "metadata/admission_internal.h"
#include "metadata/decoder_abi_internal.h"
#include "metadata/rules.h"
#include "ogai/error.h"

namespace ogai::metadata {
namespace detail {

std::string value_text(const onnx::ValueInfo& v) {
  if (!v.has_shape) return fmt::format("{} (rank unknown)", dtype_name(v.dtype));
  std::vector<std::string> dims;
  for (const auto& d : v.shape) dims.push_back(d.is_fixed() ? std::to_string(d.value) : d.symbol.empty() ? "?" : d.symbol);
  return fmt::format("{}[{}]", dtype_name(v.dtype), fmt::join(dims, ", "));
}

std::string port_mismatch(const TensorContract& c, const onnx::ValueInfo& v) {
  auto dtype = canonical_dtype(c.dtype);
  if (v.kind != onnx::ValueInfo::Kind::kTensor) return "the graph value is not a tensor";
  if (dtype && *dtype != v.dtype) return fmt::format("dtype {} declared, graph has {}", c.dtype, dtype_name(v.dtype));
  if (!v.has_shape) return "";
  if (c.rank != v.rank()) return fmt::format("rank {} declared, graph has rank {}", c.rank, v.rank());
  if (!c.shape) return "";
  for (std::size_t i = 0; i < c.shape->size() && i < v.shape.size(); ++i) {
    const ShapeDim& d = (*c.shape)[i];
    if (d.is_fixed() && v.shape[i].is_fixed() && d.value != v.shape[i].value)
      return fmt::format("axis {} is {} declared, graph has {}", i, d.value, v.shape[i].value);
  }
  return "";
}

namespace {

std::string component_path(const std::string& name) { return "pipeline.workflow.components." + name; }

void read_graphs(Admission& a) {
  for (const auto& [component, file] : a.files.component_artifacts) {
    std::string path = a.doc.workflow ? component_path(component) + ".implementation.artifact" : "model";
    try {
      onnx::GraphInfo g = onnx::read_graph_info(file);
      for (const auto* list : {&g.inputs, &g.outputs})
        for (const auto& v : *list)
          if (v.name.empty()) a.diags.report("R1", path, "graph {} has an unnamed input or output", file.string());
      a.graphs.emplace(component, std::move(g));
    } catch (const Error& e) {
      a.diags.report("R1", path, "cannot read the ONNX graph: {}", e.what());
    }
  }
}

// Every external initializer's [offset, offset + length) lies inside its file, and a declared
// length is what the tensor's shape and type need (what ONNX Runtime checks at load).
void check_external_ranges(Admission& a, const std::string& path, const onnx::GraphInfo& g, const std::string& location,
                           const std::filesystem::path& file) {
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) return;  // resolve_in_package reported it
  for (const onnx::Initializer& init : g.initializers) {
    if (!init.external || init.external_location != location) continue;
    std::optional<std::uint64_t> need = init.byte_size();
    if (init.external_length >= 0 && need && static_cast<std::uint64_t>(init.external_length) != *need) {
      std::string dims;
      for (std::size_t i = 0; i < init.dims.size(); ++i) dims += (i ? ", " : "") + std::to_string(init.dims[i]);
      a.diags.report("R1", path, "initializer '{}' declares {} bytes of external data but {}[{}] needs {}", init.name,
                     init.external_length, dtype_name(init.dtype), dims, *need);
      continue;
    }
    if (init.external_length < 0 && !need) continue;
    const std::uint64_t length = init.external_length >= 0 ? static_cast<std::uint64_t>(init.external_length) : *need;
    if (init.external_offset > size || length > size - init.external_offset)
      a.diags.report("R1", path, "initializer '{}' needs bytes [{}, {}) of {}, which has {} bytes", init.name,
                     init.external_offset, init.external_offset + length, location, size);
  }
}

void check_external_data(Admission& a) {
  for (const auto& [component, g] : a.graphs) {
    const auto& file = a.files.component_artifacts.at(component);
    auto rel_dir = std::filesystem::relative(file.parent_path(), a.files.root);
    std::string path = component_path(component) + ".implementation.artifact";
    for (const std::string& location : g.external_data_files()) {
      std::string rel = (rel_dir / location).lexically_normal().string();
      if (auto data = resolve_in_package(a.files.root, rel, path, a.diags)) check_external_ranges(a, path, g, location, *data);
    }
  }
}

void check_declared_ports(Admission& a, const std::string& name, const Component& c, const onnx::GraphInfo& g) {
  for (bool input : {true, false}) {
    for (const auto& [port, contract] : input ? c.ports.inputs : c.ports.outputs) {
      std::string path = component_path(name) + (input ? ".ports.inputs." : ".ports.outputs.") + port;
      const onnx::ValueInfo* v = input ? g.find_input(port) : g.find_output(port);
      if (!v) {
        a.diags.report("R2", path, "the ONNX graph of '{}' has no {} named '{}'", name, input ? "input" : "output", port);
        continue;
      }
      std::string why = port_mismatch(contract, *v);
      if (!why.empty()) a.diags.report("R2", path, "{} ({} vs graph {})", why, contract_text(contract), value_text(*v));
    }
  }
}

void check_invoke(Admission& a, const Step& s, const InvokeStep& inv) {
  const Component* c = find_named(a.doc.workflow->components, inv.component);
  const onnx::GraphInfo* g = a.graph(inv.component);
  if (!c || !g || c->implementation.kind != Implementation::Kind::kOnnx) return;
  if (c->application_overridable && c->contract)
    for (const auto* ports : {&inv.inputs, &inv.outputs})
      for (const auto& [port, value] : *ports) {
        bool covered = false;
        for (const auto& [role, bound] : c->contract->bindings) covered |= bound == port;
        if (!covered)
          a.diags.report("R4", s.path, "overridable component '{}' is invoked with port '{}', which its contract does "
                         "not bind (a replacement could not receive it)", inv.component, port);
      }
  for (const auto& [port, value] : inv.inputs) {
    const onnx::ValueInfo* v = g->find_input(port);
    if (!v) {
      a.diags.report("R3", s.path + ".inputs." + port, "the graph of '{}' has no input '{}'", inv.component, port);
      continue;
    }
    auto contract = a.values.find(value);
    if (c->ports.inferred() && contract != a.values.end() && contract->second) {
      std::string why = port_mismatch(*contract->second, *v);
      if (!why.empty())
        a.diags.report("R2", s.path + ".inputs." + port, "value '{}' does not fit graph input '{}': {}", value, port, why);
    }
  }
  for (const auto& [port, value] : inv.outputs)
    if (!g->find_output(port))
      a.diags.report("R3", s.path + ".outputs." + port, "the graph of '{}' has no output '{}'", inv.component, port);
  for (const onnx::ValueInfo* v : g->runtime_inputs()) {
    const TensorContract* declared = find_named(c->ports.inputs, v->name);
    if (!find_named(inv.inputs, v->name) && !(declared && declared->optional))
      a.diags.report("R3", s.path + ".inputs", "graph input '{}' of '{}' is not bound (every input without an "
                     "initializer must be bound by the invoke)", v->name, inv.component);
  }
}

void walk_invokes(Admission& a, const std::vector<Step>& steps) {
  for (const Step& s : steps) {
    if (const auto* inv = std::get_if<InvokeStep>(&s.body)) check_invoke(a, s, *inv);
    else if (const auto* seq = std::get_if<SequenceStep>(&s.body)) walk_invokes(a, seq->steps);
    else if (const auto* loop = std::get_if<LoopStep>(&s.body)) walk_invokes(a, loop->setup), walk_invokes(a, loop->steps);
    else if (const auto* b = std::get_if<BranchStep>(&s.body)) {
      for (const auto& c : b->cases) walk_invokes(a, c.body);
      walk_invokes(a, b->default_step);
    }
  }
}

void check_legacy_ports(Admission& a) {
  const onnx::GraphInfo* g = a.graph("model");
  if (!g) return;
  const ModelIo& io = *a.doc.model->io;
  auto need = [&](const std::optional<std::string>& port, bool input, const char* key) {
    if (port && !(input ? g->find_input(*port) : g->find_output(*port)))
      a.diags.report("R2", std::string("model.io.") + key, "the graph has no {} '{}'", input ? "input" : "output", *port);
  };
  need(io.token_input, true, "token_input");
  need(io.inputs_embeds_input, true, "inputs_embeds_input");
  need(io.attention_mask_input, true, "attention_mask_input");
  need(io.position_ids_input, true, "position_ids_input");
  need(io.logits_output, false, "logits_output");
  need(io.hidden_output, false, "hidden_output");
  for (const auto& p : io.kv_inputs) need(p, true, "kv_inputs");
  for (const auto& p : io.kv_outputs) need(p, false, "kv_outputs");
}

}  // namespace
}  // namespace detail

std::map<std::string, onnx::GraphInfo> admit_graphs(const Document& doc, const PackageFiles& files, Diagnostics& diags) {
  detail::Admission a{doc, files, diags, {}, detail::workflow_values(doc)};
  detail::read_graphs(a);
  detail::check_external_data(a);
  if (doc.workflow) {
    for (const auto& [name, c] : doc.workflow->components)
      if (const onnx::GraphInfo* g = a.graph(name); g && !c.ports.inferred()) detail::check_declared_ports(a, name, c, *g);
    detail::walk_invokes(a, doc.workflow->steps);
    detail::check_overrides(a);
    detail::check_speculative_graphs(a);
    detail::check_aliasing_required(a);
    detail::check_static_cache(a);
  } else if (doc.model && doc.model->io) {
    detail::check_legacy_ports(a);
  }
  detail::check_kv_ports(a);
  return std::move(a.graphs);
}

}  // namespace ogai::metadata
