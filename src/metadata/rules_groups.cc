// V-GROUP (state-service groups and their port aliases), V-LAYER (layer pairing) and V-SERVE
// (serving controls). V-UPDATE and V-ROLE are in rules_update.cc.
#include <map>
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

std::string group_path(const std::string& name) { return wf_path("serving.state_service.groups." + name); }

void check_logical_cells(RuleContext& ctx, const std::string& name, const StateGroup& g) {
  Diagnostics& d = ctx.diags;
  std::string path = group_path(name);
  if (g.logical_lengths) {
    const StateCell* cell = ctx.cell(*g.logical_lengths);
    if (!cell)
      d.report("V-GROUP", path + ".logical_lengths", "logical_lengths names '{}', which is not a state cell", *g.logical_lengths);
    else if (!is_integer_contract(cell->contract) || cell->contract.rank != 1 || cell->cls != StateClass::kSemantic)
      d.report("V-GROUP", path + ".logical_lengths", "logical_lengths cell '{}' is {}; expected a semantic integer cell "
               "of rank 1", *g.logical_lengths, contract_text(cell->contract));
  }
  if (g.total_length && !ctx.cell(*g.total_length))
    d.report("V-GROUP", path + ".total_length", "total_length names '{}', which is not a state cell", *g.total_length);
}

bool is_role_port(const Component& c, const std::string& port) { return find_named(c.ports.roles, port) != nullptr; }

void check_alias(RuleContext& ctx, const std::string& group, const std::string& component, const Component* comp,
                 const std::string& cell_name, const StateAlias& a) {
  Diagnostics& d = ctx.diags;
  std::string path = group_path(group) + ".ports." + component + "." + cell_name;
  const StateCell* cell = ctx.cell(cell_name);
  if (!cell || cell->service_group != group)
    d.report("V-GROUP", path, "alias key '{}' must be a state cell bound to this group (service_group: {})", cell_name, group);
  if (!a.read_only && !a.output)
    d.report("V-GROUP", path, "read_write alias on component '{}' declares no output (present) port; add `output` or "
             "mark it `access: read_only`", component);
  if (!comp) return;
  if (!comp->ports.inferred()) {
    if (!find_named(comp->ports.inputs, a.input))
      d.report("V-GROUP", path + ".input", "component '{}' declares no input port '{}'", component, a.input);
    if (a.output && !find_named(comp->ports.outputs, *a.output))
      d.report("V-GROUP", path + ".output", "component '{}' declares no output port '{}'", component, *a.output);
  }
  if (is_role_port(*comp, a.input) || (a.output && is_role_port(*comp, *a.output)))
    d.report("V-GROUP", path, "state ports never take a role; remove the ports.roles entry of component '{}'", component);
}

void check_layers(RuleContext& ctx, const std::string& group, const StateGroup& g, const std::string& component,
                  const NamedMap<StateAlias>& aliases) {
  Diagnostics& d = ctx.diags;
  std::string path = group_path(group) + ".ports." + component;
  // Aliases without a role are exempt: each is bound by its own port pair, never by position.
  std::map<KvRole, std::vector<const StateAlias*>> by_role;
  for (const auto& [cell, a] : aliases)
    if (a.role) by_role[*a.role].push_back(&a);
  for (const auto& [role, list] : by_role) {
    if (list.size() < 2) continue;
    std::set<std::int64_t> layers;
    for (const StateAlias* a : list) {
      if (!a->layer) {
        d.report("V-LAYER", path, "{} aliases of role {} on component '{}' must each declare a distinct `layer`",
                 list.size(), kv_role_name(role), component);
        break;
      }
      if (!layers.insert(*a->layer).second)
        d.report("V-LAYER", path, "layer {} is declared twice for role {} on component '{}'", *a->layer,
                 kv_role_name(role), component);
    }
  }
  if (!is_self_attention(g.kind)) return;
  std::multiset<std::int64_t> keys, values;
  for (const auto& [cell, a] : aliases) {
    if (a.role == KvRole::kKey) keys.insert(a.layer.value_or(0));
    if (a.role == KvRole::kValue) values.insert(a.layer.value_or(0));
  }
  if (keys != values)
    d.report("V-LAYER", path, "key layers [{}] and value layers [{}] of component '{}' must pair up one to one",
             fmt::join(keys, ", "), fmt::join(values, ", "), component);
}

void check_group(RuleContext& ctx, const std::string& name, const StateGroup& g) {
  Diagnostics& d = ctx.diags;
  std::string path = group_path(name);
  if (g.layout.empty()) d.report("V-GROUP", path + ".layout", "layout must be non-empty (e.g. bnsh)");
  check_logical_cells(ctx, name, g);
  for (const std::string& other : g.cascade)
    if (!ctx.group(other)) d.report("V-GROUP", path + ".capabilities.cascade", "cascade names unknown group '{}'", other);
  if (g.rollback_positions && *g.rollback_positions == 0)
    d.report("V-GROUP", path + ".capabilities.rollback_positions", "rollback_positions 0 means no rollback; omit it instead");
  for (const auto& [component, aliases] : g.ports) {
    const Component* comp = ctx.component(component);
    if (!comp)
      d.report("V-GROUP", path + ".ports." + component, "ports name unknown component '{}'", component);
    for (const auto& [cell, a] : aliases) check_alias(ctx, name, component, comp, cell, a);
    check_layers(ctx, name, g, component, aliases);
  }
}

void check_control(RuleContext& ctx, const std::string& value, const std::string& key, bool integer) {
  std::string path = wf_path("serving." + key);
  if (!ctx.value_defined(value)) {
    ctx.diags.report("V-SERVE", path, "'{}' is not a defined workflow value", value);
    return;
  }
  const TensorContract* c = ctx.value_contract(value);
  if (!c) return;
  bool typed = integer ? is_integer_contract(*c) : is_bool_contract(*c);
  if (!typed || c->rank > 1)
    ctx.diags.report("V-SERVE", path, "'{}' is {}; expected {} of rank 0 or 1", value, contract_text(*c),
                     integer ? "an integer" : "bool");
  if (c->rank > 0 && !(c->batch_layout.is_request_aligned() && c->batch_layout.axis == 0))
    ctx.diags.report("V-SERVE", path, "'{}' has rank {}, so it must be request_aligned on axis 0", value, c->rank);
}

}  // namespace

void check_groups(RuleContext& ctx) {
  if (!ctx.wf.serving) return;
  const Serving& s = *ctx.wf.serving;
  if (s.groups.empty())
    ctx.diags.report("V-SERVE", wf_path("serving.state_service.groups"), "a serving contract needs at least one state group");
  if (!s.groups.empty() && !s.accepted_len)
    ctx.diags.report("V-SERVE", wf_path("serving.accepted_len"), "accepted_len is required when state groups exist "
                     "(it says how many positions each row committed)");
  check_control(ctx, s.active, "active", false);
  check_control(ctx, s.done, "done", false);
  if (s.accepted_len) check_control(ctx, *s.accepted_len, "accepted_len", true);
  for (const auto& [name, g] : s.groups) check_group(ctx, name, g);
}

}  // namespace ogai::metadata::detail
