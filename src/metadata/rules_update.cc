// V-UPDATE (how a group's buffers absorb new positions) and V-ROLE (the sole decoder declares its
// sequence input role).
#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

std::string group_path(const std::string& name) { return wf_path("serving.state_service.groups." + name); }

void check_capacity(RuleContext& ctx, const std::string& path, const std::string& capacity) {
  const TensorContract* c = nullptr;
  if (const WorkflowInput* in = ctx.input(capacity)) c = &in->contract;
  else if (const StateCell* cell = ctx.cell(capacity)) c = &cell->contract;
  if (!c) {
    ctx.diags.report("V-UPDATE", path + ".capacity", "capacity '{}' is neither a workflow input nor a state cell", capacity);
    return;
  }
  if (!is_integer_contract(*c) || !is_scalar_or_single(*c))
    ctx.diags.report("V-UPDATE", path + ".capacity", "capacity '{}' is {}; expected an integer scalar (rank 0 or shape [1])",
                     capacity, contract_text(*c));
}

void check_port_map(RuleContext& ctx, const std::string& path, const NamedMap<std::string>& ports) {
  for (const auto& [component, port] : ports) {
    const Component* comp = ctx.component(component);
    if (!comp) ctx.diags.report("V-UPDATE", path + "." + component, "unknown component '{}'", component);
    else if (!comp->ports.inferred() && !find_named(comp->ports.inputs, port))
      ctx.diags.report("V-UPDATE", path + "." + component, "component '{}' declares no input port '{}'", component, port);
  }
}

void check_scatter(RuleContext& ctx, const std::string& name, const StateGroup& g, const StateUpdate& u) {
  Diagnostics& d = ctx.diags;
  std::string path = group_path(name) + ".update";
  if (!g.logical_lengths)
    d.report("V-UPDATE", group_path(name) + ".logical_lengths", "an indexed_scatter group needs logical_lengths (the "
             "valid prefix of its fixed-capacity buffers)");
  const StateCell* wi = ctx.cell(u.write_indices);
  if (!wi)
    d.report("V-UPDATE", path + ".write_indices", "write_indices '{}' is not a state cell", u.write_indices);
  else if (!is_integer_contract(wi->contract) || wi->contract.rank != 1 || wi->cls != StateClass::kSemantic)
    d.report("V-UPDATE", path + ".write_indices", "write_indices cell '{}' is {}; expected a semantic integer cell of "
             "rank 1", u.write_indices, contract_text(wi->contract));
  check_capacity(ctx, path, u.capacity);
  check_port_map(ctx, path + ".write_indices_ports", u.write_indices_ports);
  check_port_map(ctx, path + ".kv_length_ports", u.kv_length_ports);
  for (const auto& [component, aliases] : g.ports) {
    if (!find_named(u.write_indices_ports, component))
      d.report("V-UPDATE", path + ".write_indices_ports", "component '{}' binds this group but has no write_indices_ports "
               "entry", component);
    bool split = false;
    for (const auto& [cell, a] : aliases) split |= a.role == KvRole::kKey || a.role == KvRole::kValue;
    if (split && !find_named(u.kv_length_ports, component))
      d.report("V-UPDATE", path + ".kv_length_ports", "component '{}' has key/value aliases in this group but no "
               "kv_length_ports entry", component);
  }
}

void check_update(RuleContext& ctx, const std::string& name, const StateGroup& g) {
  Diagnostics& d = ctx.diags;
  StateUpdate::Kind kind = g.update ? g.update->kind : StateUpdate::Kind::kAppend;
  std::string path = group_path(name);
  bool needs_axis = kind != StateUpdate::Kind::kReplace;
  if (needs_axis && !g.sequence_axis && (g.update || is_self_attention(g.kind)))
    d.report("V-UPDATE", path + ".sequence_axis", "a {} group needs sequence_axis",
             kind == StateUpdate::Kind::kIndexedScatter ? "indexed_scatter" : "growing (append)");
  if (kind == StateUpdate::Kind::kReplace && g.sequence_axis)
    d.report("V-UPDATE", path + ".sequence_axis", "a replace group holds fixed-size state and must not declare sequence_axis");
  bool invariant_only = kind == StateUpdate::Kind::kReplace || kind == StateUpdate::Kind::kIndexedScatter;
  if (invariant_only) {
    for (const auto& [cell_name, cell] : ctx.wf.state)
      if (cell.service_group == name && cell.recurrence.kind != Recurrence::Kind::kInvariant)
        d.report("V-UPDATE", wf_path("state." + cell_name + ".recurrence"), "group '{}' replaces or scatters into "
                 "fixed buffers, so its cells must be invariant", name);
  }
  if (kind == StateUpdate::Kind::kIndexedScatter) check_scatter(ctx, name, g, *g.update);
}

bool owns_self_attention(const Serving& s, const std::string& component) {
  for (const auto& [name, g] : s.groups) {
    if (!is_self_attention(g.kind)) continue;
    if (const auto* aliases = find_named(g.ports, component))
      for (const auto& [cell, a] : *aliases)
        if (!a.read_only) return true;
  }
  return false;
}

void check_sole_decoder_role(RuleContext& ctx) {
  const std::string* only = nullptr;
  int onnx = 0;
  for (const auto& [name, c] : ctx.wf.components)
    if (c.implementation.kind == Implementation::Kind::kOnnx && ++onnx == 1) only = &name;
  if (onnx != 1 || !owns_self_attention(*ctx.wf.serving, *only)) return;
  const Component& c = *ctx.component(*only);
  for (const auto& [port, role] : c.ports.roles)
    if (role == PortRole::kTokenIds || role == PortRole::kInputsEmbeds) return;
  ctx.diags.report("V-ROLE", wf_path("components." + *only + ".ports.roles"), "the only ONNX component '{}' owns a "
                   "self-attention group, so it must declare a token_ids or inputs_embeds port role (contracts do not "
                   "count)", *only);
}

}  // namespace

void check_updates_and_roles(RuleContext& ctx) {
  if (!ctx.wf.serving) return;
  for (const auto& [name, g] : ctx.wf.serving->groups) check_update(ctx, name, g);
  check_sole_decoder_role(ctx);
}

}  // namespace ogai::metadata::detail
