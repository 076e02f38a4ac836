// ONNX admission R4–R8: overridable components, KV ports, speculative graphs, required aliasing
// and static-cache ports.
#include <functional>
#include <set>

#include <fmt/format.h>

#include "metadata/admission_internal.h"
#include "metadata/decoder_abi.h"
#include "metadata/decoder_abi_internal.h"

namespace ogai::metadata::detail {
namespace {

std::string group_path(const std::string& name) { return "pipeline.workflow.serving.state_service.groups." + name; }

bool is_kv_float(DataType t) { return t == DataType::kFloat16 || t == DataType::kFloat32 || t == DataType::kBfloat16; }

const onnx::ValueInfo* find_port(const onnx::GraphInfo& g, const std::string& port) {
  if (const auto* v = g.find_input(port)) return v;
  return g.find_output(port);
}

void check_kv_value(Admission& a, const std::string& path, const std::string& component, const std::string& port,
                    const onnx::ValueInfo* v, bool input) {
  if (!v) {
    a.diags.report("R5", path, "KV port '{}' is not a graph {} of '{}'", port, input ? "input" : "output", component);
    return;
  }
  if (!is_kv_float(v->dtype) || (v->has_shape && v->rank() < 3))
    a.diags.report("R5", path, "KV port '{}' of '{}' is {}; KV tensors are float16/float32/bfloat16 of rank >= 3", port,
                   component, value_text(*v));
}

// Ports of the decoder that are neither role ports nor state ports.
void check_unexplained_ports(Admission& a, const std::string& decoder, const std::set<std::string>& explained) {
  const onnx::GraphInfo* g = a.graph(decoder);
  if (!g) return;
  std::vector<const onnx::ValueInfo*> ports = g->runtime_inputs();
  for (const auto& v : g->outputs) ports.push_back(&v);
  for (const onnx::ValueInfo* v : ports)
    if (v->rank() >= 3 && !explained.count(v->name))
      a.diags.report("R5", a.doc.workflow ? "pipeline.workflow.components." + decoder + ".ports.roles" : "model.io",
                     "decoder port '{}' ({}) has rank >= 3 but no role and no state alias; declare its role (e.g. "
                     "hidden_states for a hidden-state tap) or bind it to a state group", v->name, value_text(*v));
}

void check_legacy_kv(Admission& a) {
  const ModelIo& io = *a.doc.model->io;
  const onnx::GraphInfo* g = a.graph("model");
  if (!g) return;
  std::set<std::string> explained;
  for (const auto* p : {&io.token_input, &io.inputs_embeds_input, &io.attention_mask_input, &io.position_ids_input,
                        &io.logits_output, &io.hidden_output, &io.encoder_hidden_states_input, &io.audio_features_input})
    if (*p) explained.insert(**p);
  for (const auto* list : {&io.kv_inputs, &io.cross_kv_inputs})
    for (const auto& p : *list) check_kv_value(a, "model.io", "model", p, g->find_input(p), true), explained.insert(p);
  for (const auto* list : {&io.kv_outputs, &io.cross_kv_outputs})
    for (const auto& p : *list) check_kv_value(a, "model.io", "model", p, g->find_output(p), false), explained.insert(p);
  for (const auto& [in, out] : io.state_pairs) explained.insert(in), explained.insert(out);
  check_unexplained_ports(a, "model", explained);
}

// Outputs of `component` that its (first) invoke binds to a value the workflow emits: published
// as workflow outputs (e.g. Whisper's cross-attention weights, output_cross_qk_N), so explained.
std::set<std::string> emitted_outputs(const Workflow& wf, const std::string& component) {
  std::set<std::string> emitted, ports;
  std::function<void(const std::vector<Step>&)> walk = [&](const std::vector<Step>& steps) {
    for (const Step& s : steps) {
      if (const auto* e = std::get_if<EmitStep>(&s.body)) emitted.insert(e->value);
      if (const auto* q = std::get_if<SequenceStep>(&s.body)) walk(q->steps);
      if (const auto* l = std::get_if<LoopStep>(&s.body)) walk(l->setup), walk(l->steps);
    }
  };
  walk(wf.steps);
  if (const InvokeStep* inv = first_invoke(wf.steps, component))
    for (const auto& [port, value] : inv->outputs)
      if (emitted.count(value)) ports.insert(port);
  return ports;
}

}  // namespace

void check_kv_ports(Admission& a) {
  if (!a.doc.workflow) {
    if (a.doc.model && a.doc.model->io) check_legacy_kv(a);
    return;
  }
  const Workflow& wf = *a.doc.workflow;
  std::set<std::string> explained;  // ports of the sole decoder
  auto decoder = sole_decoder(wf);
  if (wf.serving) {
    for (const auto& [name, g] : wf.serving->groups) {
      bool kv = is_self_attention(g.kind) || g.kind == GroupKind::kCrossAttention;
      for (const auto& [component, aliases] : g.ports) {
        const onnx::GraphInfo* graph = a.graph(component);
        for (const auto& [cell, alias] : aliases) {
          if (component == decoder) explained.insert(alias.input), explained.insert(alias.output.value_or(""));
          if (!graph || !kv) continue;
          std::string path = group_path(name) + ".ports." + component + "." + cell;
          check_kv_value(a, path + ".input", component, alias.input, graph->find_input(alias.input), true);
          if (alias.output) check_kv_value(a, path + ".output", component, *alias.output, graph->find_output(*alias.output), false);
        }
      }
    }
  }
  if (!decoder) return;
  for (const auto& [port, role] : find_named(wf.components, *decoder)->ports.roles) explained.insert(port);
  for (const auto& port : emitted_outputs(wf, *decoder)) explained.insert(port);
  check_unexplained_ports(a, *decoder, explained);
}

void check_overrides(Admission& a) {
  const Workflow& wf = *a.doc.workflow;
  for (const auto& [target, tc] : wf.components) {
    if (!tc.application_overridable || !tc.contract) continue;
    const onnx::GraphInfo* tg = a.graph(target);
    for (const auto& [name, rc] : wf.components) {
      if (name == target || !rc.contract || rc.contract->id != tc.contract->id || rc.contract->version != tc.contract->version) continue;
      const onnx::GraphInfo* rg = a.graph(name);
      for (const auto& [role, tport] : tc.contract->bindings) {
        const std::string* rport = find_named(rc.contract->bindings, role);
        std::string path = "pipeline.workflow.components." + name + ".contract.bindings";
        if (!rport) {
          a.diags.report("R4", path, "replacement '{}' lacks semantic port '{}' required by '{}'", name, role, target);
          continue;
        }
        if (!tg || !rg) continue;
        const onnx::ValueInfo *tv = find_port(*tg, tport), *rv = find_port(*rg, *rport);
        bool same_dir = tv && rv && (tg->find_input(tport) != nullptr) == (rg->find_input(*rport) != nullptr);
        bool same_sig = same_dir && tv->dtype == rv->dtype && tv->rank() == rv->rank();
        if (!same_sig)
          a.diags.report("R4", path + "." + role, "replacement port '{}' ({}) is incompatible with '{}' port '{}' ({})",
                         *rport, rv ? value_text(*rv) : "missing", target, tport, tv ? value_text(*tv) : "missing");
      }
    }
  }
}

void check_speculative_graphs(Admission& a) {
  if (!a.doc.speculative || !a.doc.speculative->chained) return;
  const Speculative& s = *a.doc.speculative;
  const Speculative::Chained& ch = *s.chained;
  std::string path = "speculative.proposal_execution";
  if (const onnx::GraphInfo* p = a.graph(s.proposer)) {
    if (!p->find_input(ch.token_embedding_input))
      a.diags.report("R2", path + ".token_embedding_input", "the proposer graph has no input '{}'", ch.token_embedding_input);
    for (const auto* out : {&ch.logits_output, ch.folded_carry_output ? &*ch.folded_carry_output : nullptr})
      if (out && !p->find_output(*out)) a.diags.report("R2", path, "the proposer graph has no output '{}'", *out);
  }
  const onnx::GraphInfo* t = a.graph(s.target);
  if (!t) return;
  if (ch.folded_carry_seed && ch.folded_carry_seed->first == s.target && !t->find_output(ch.folded_carry_seed->second))
    a.diags.report("R2", path + ".folded_carry_seed", "the target graph has no output '{}'", ch.folded_carry_seed->second);
  if (ch.token_embedding && ch.token_embedding->first == s.target && !t->is_initializer(ch.token_embedding->second))
    a.diags.report("R6", path + ".token_embedding.table", "'{}' is not an initializer of the target graph; the proposer's "
                   "token embedding must come from a target weight", ch.token_embedding->second);
}

void check_aliasing_required(Admission& a) {
  const Workflow& wf = *a.doc.workflow;
  if (!wf.serving) return;
  static const std::set<std::string> kExplicitLength = {"com.microsoft:GroupQueryAttention", "com.microsoft:SparseAttention",
                                                        "com.microsoft:PagedAttention"};
  bool max_known = a.doc.model && a.doc.model->max_sequence_length;
  for (const auto& [name, g] : wf.serving->groups) {
    if (g.aliasing != Aliasing::kRequired) continue;
    bool capacity = g.update && g.update->kind == StateUpdate::Kind::kIndexedScatter;
    if (!max_known && !capacity)
      a.diags.report("R7", group_path(name) + ".aliasing", "aliasing: required needs a known maximum length "
                     "(model.max_sequence_length or an indexed_scatter capacity) to size the shared buffer");
    for (const auto& [component, aliases] : g.ports) {
      const onnx::GraphInfo* graph = a.graph(component);
      if (!graph) continue;
      bool explicit_length = false;
      for (const auto& [op, count] : graph->op_types) explicit_length |= kExplicitLength.count(op) > 0;
      if (!explicit_length)
        a.diags.report("R7", group_path(name) + ".aliasing", "aliasing: required, but the graph of '{}' has no "
                       "explicit-length attention op (GroupQueryAttention, SparseAttention, PagedAttention), so a "
                       "shared past/present buffer cannot be honoured", component);
    }
  }
}

void check_static_cache(Admission& a) {
  const Workflow& wf = *a.doc.workflow;
  if (!wf.serving) return;
  for (const auto& [name, g] : wf.serving->groups) {
    if (!g.update || g.update->kind != StateUpdate::Kind::kIndexedScatter) continue;
    for (const auto* ports : {&g.update->write_indices_ports, &g.update->kv_length_ports}) {
      for (const auto& [component, port] : *ports) {
        const onnx::GraphInfo* graph = a.graph(component);
        const onnx::ValueInfo* v = graph ? graph->find_input(port) : nullptr;
        if (graph && (!v || !is_integer_type(v->dtype)))
          a.diags.report("R8", group_path(name) + ".update", "static-cache port '{}' must be an integer input of '{}'{}",
                         port, component, v ? ", got " + value_text(*v) : "");
      }
    }
  }
}

}  // namespace ogai::metadata::detail
