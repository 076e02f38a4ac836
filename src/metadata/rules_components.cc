// V-COMP (component declarations and contracts), V-EFFECT (effect domains), V-ROW (row scope).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

struct KnownContract {
  std::string_view id, version;
  std::set<std::string_view> bindings;
  std::set<std::string_view> actions;  // empty: no action parameter
};

const std::vector<KnownContract>& known_contracts() {
  static const std::vector<KnownContract> kKnown = {
      {"onnx-genai.token-sampler", "2", {"logits", "token", "temperature", "top_k", "top_p", "min_p", "active",
                                         "done", "seed", "counter", "next_counter"}, {}},
      {"onnx-genai.termination-predicate", "2", {"tokens", "eos_ids", "iteration", "max_iterations", "eos_lengths",
                                                 "active", "done", "next_active", "continue"}, {}},
      {"onnx-genai.state-update", "2", {"current", "update", "active", "done", "next"}, {}},
      {"onnx-genai.grammar-guidance", "1", {"state", "tokens", "valid_length", "transition_table", "next_state",
                                            "consumed_length", "logits_mask", "forced_tokens", "forced_length"},
       {"clone", "lookahead", "commit"}},
  };
  return kKnown;
}

bool has_port(const Component& c, const std::string& port) {
  return find_named(c.ports.inputs, port) || find_named(c.ports.outputs, port);
}

void check_known_contract(RuleContext& ctx, const ComponentContract& c, const std::string& path) {
  for (const KnownContract& k : known_contracts()) {
    if (c.id != k.id || c.version != k.version) continue;
    std::set<std::string_view> have;
    for (const auto& [role, port] : c.bindings) have.insert(role);
    if (have != k.bindings) {
      std::vector<std::string_view> missing, extra;
      std::set_difference(k.bindings.begin(), k.bindings.end(), have.begin(), have.end(), std::back_inserter(missing));
      std::set_difference(have.begin(), have.end(), k.bindings.begin(), k.bindings.end(), std::back_inserter(extra));
      ctx.diags.report("V-COMP", path + ".bindings", "{}@{} needs exactly its binding set; missing [{}], unexpected [{}]",
                       k.id, k.version, fmt::join(missing, ", "), fmt::join(extra, ", "));
    }
    if (k.actions.empty()) continue;
    const nlohmann::json* action = find_named(c.parameters, "action");
    std::string text = action && action->is_string() ? action->get<std::string>() : "";
    if (!k.actions.count(text))
      ctx.diags.report("V-COMP", path + ".parameters.action", "{}@{} needs parameters.action, one of: {}; got '{}'", k.id,
                       k.version, fmt::join(k.actions, ", "), text);
  }
}

void check_component(RuleContext& ctx, const std::string& name, const Component& c) {
  Diagnostics& d = ctx.diags;
  std::string path = wf_path("components." + name);
  if (name.empty() || name.find('.') != std::string::npos)
    d.report("V-COMP", path, "component name '{}' must be non-empty and contain no '.'", name);
  const Implementation& impl = c.implementation;
  if (impl.kind == Implementation::Kind::kOnnx && impl.artifact.empty())
    d.report("V-COMP", path + ".implementation.artifact", "an ONNX component needs a non-empty artifact path");
  if (impl.kind == Implementation::Kind::kAdapter) {
    const std::string* pinned = find_named(ctx.wf.manifest.adapter_abis, impl.abi);
    if (!pinned || *pinned != impl.version)
      d.report("V-COMP", path + ".implementation", "adapter ABI {}@{} must be pinned exactly in "
               "pipeline.workflow.manifest.adapter_abis (found {})", impl.abi, impl.version,
               pinned ? "version " + *pinned : std::string("no entry"));
    if (c.contract && (c.contract->id != impl.abi || c.contract->version != impl.version))
      d.report("V-COMP", path + ".contract", "adapter ABI {}@{} must equal its contract {}@{}", impl.abi, impl.version,
               c.contract->id, c.contract->version);
  }
  if (c.contract) {
    const ComponentContract& k = *c.contract;
    if (k.id.empty() || k.version.empty())
      d.report("V-COMP", path + ".contract", "a contract needs a non-empty id and version");
    if (!c.ports.inferred())
      for (const auto& [role, port] : k.bindings)
        if (!has_port(c, port))
          d.report("V-COMP", path + ".contract.bindings." + role, "binding names port '{}', which the component does "
                   "not declare", port);
    check_known_contract(ctx, k, path + ".contract");
  }
  if (c.application_overridable && (!c.contract || impl.kind != Implementation::Kind::kOnnx))
    d.report("V-COMP", path + ".application_overridable", "an overridable component needs a versioned contract and "
             "an ONNX implementation");
}

void check_effects_and_rows(RuleContext& ctx, const std::string& name, const Component& c) {
  Diagnostics& d = ctx.diags;
  std::string path = wf_path("components." + name);
  for (const std::string& domain : c.effects)
    if (!find_named(ctx.wf.effects, domain))
      d.report("V-EFFECT", path + ".effects", "effect domain '{}' is not declared in pipeline.workflow.effects", domain);
  bool request_aligned = false;
  for (const auto* ports : {&c.ports.inputs, &c.ports.outputs}) {
    for (const auto& [port, contract] : *ports) {
      const BatchLayout& b = contract.batch_layout;
      bool row_scoped = b.kind == BatchLayout::Kind::kRequestAligned || b.kind == BatchLayout::Kind::kRequestExpanded;
      request_aligned |= row_scoped;
      if (!c.row_scope || !row_scoped) continue;
      if (c.row_scope->axis >= contract.rank || c.row_scope->axis != b.axis)
        d.report("V-ROW", path + ".row_scope.axis", "row_scope axis {} must be within port '{}' (rank {}) and equal its "
                 "request axis {}", c.row_scope->axis, port, contract.rank, b.axis);
    }
  }
  if ((!c.effects.empty() || !c.cache_affects_state.empty()) && request_aligned && !c.row_scope)
    d.report("V-ROW", path + ".row_scope", "a component with effects or cache_affects_state and request-aligned ports "
             "must declare row_scope");
}

}  // namespace

void check_components(RuleContext& ctx) {
  for (const auto& [name, c] : ctx.wf.components) {
    check_component(ctx, name, c);
    check_effects_and_rows(ctx, name, c);
  }
  for (const auto& [name, e] : ctx.wf.effects)
    if (e.safety == Effect::Safety::kRewindable && e.max_depth == 0)
      ctx.diags.report("V-EFFECT", wf_path("effects." + name + ".speculation_safety.max_depth"),
                       "a rewindable effect needs max_depth > 0");
}

}  // namespace ogai::metadata::detail
