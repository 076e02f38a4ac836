// V-SPEC: the speculative section against the workflow (components, chained proposal execution,
// folded carry, recurrent state, rollback bounds and speculative effects).
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

constexpr const char* kPath = "speculative";

// With inferred ports the artifact is the port list; ONNX admission checks these names instead.
bool is_input(const Component& c, const std::string& port) {
  return c.ports.inferred() || find_named(c.ports.inputs, port) != nullptr;
}
bool is_output(const Component& c, const std::string& port) {
  return c.ports.inferred() || find_named(c.ports.outputs, port) != nullptr;
}

void check_folded_carry(RuleContext& ctx, const Speculative& s, const Speculative::Chained& ch, const Component& proposer) {
  Diagnostics& d = ctx.diags;
  std::string path = std::string(kPath) + ".proposal_execution";
  if (!is_output(proposer, *ch.folded_carry_output))
    d.report("V-SPEC", path + ".folded_carry_output", "'{}' is not an output port of proposer '{}'", *ch.folded_carry_output, s.proposer);
  const std::string* context = find_named(s.port_bindings, "target_hidden_context");
  if (!context)
    d.report("V-SPEC", std::string(kPath) + ".port_bindings", "a folded carry needs port_bindings.target_hidden_context "
             "(the proposer input the carry re-enters through)");
  else if (!is_input(proposer, *context) || *context != ch.token_embedding_input)
    d.report("V-SPEC", std::string(kPath) + ".port_bindings.target_hidden_context", "'{}' must be a proposer input equal "
             "to token_embedding_input '{}' (the carry is folded into the fused input)", *context, ch.token_embedding_input);
  const Component* target = ctx.component(s.target);
  if (!ch.folded_carry_seed)
    d.report("V-SPEC", path + ".folded_carry_seed", "a folded carry needs folded_carry_seed {{component: <target>, output}}");
  else if (ch.folded_carry_seed->first != s.target || !target || !is_output(*target, ch.folded_carry_seed->second))
    d.report("V-SPEC", path + ".folded_carry_seed", "folded_carry_seed must name the target '{}' and one of its outputs; got "
             "{{component: {}, output: {}}}", s.target, ch.folded_carry_seed->first, ch.folded_carry_seed->second);
  if (!ch.token_embedding)
    d.report("V-SPEC", path + ".token_embedding", "a folded carry needs token_embedding {{component: <target>, table}}");
  else if (ch.token_embedding->first != s.target || !target ||
           target->implementation.kind != Implementation::Kind::kOnnx || ch.token_embedding->second.empty())
    d.report("V-SPEC", path + ".token_embedding", "token_embedding must name the ONNX target '{}' and a non-empty table; "
             "got {{component: {}, table: '{}'}}", s.target, ch.token_embedding->first, ch.token_embedding->second);
}

const StateAlias* proposer_alias(RuleContext& ctx, const std::string& proposer, const std::string& cell) {
  if (!ctx.wf.serving) return nullptr;
  for (const auto& [name, g] : ctx.wf.serving->groups)
    if (const auto* aliases = find_named(g.ports, proposer))
      if (const StateAlias* a = find_named(*aliases, cell)) return a;
  return nullptr;
}

void check_recurrent(RuleContext& ctx, const Speculative& s, const Speculative::Chained& ch) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < ch.recurrent.size(); ++i) {
    const auto& r = ch.recurrent[i];
    std::string path = fmt::format("{}.proposal_execution.recurrent[{}]", kPath, i);
    if (!seen.insert(r.state).second) ctx.diags.report("V-SPEC", path + ".state", "cell '{}' is listed twice", r.state);
    if (std::find(s.rollback_state.begin(), s.rollback_state.end(), r.state) == s.rollback_state.end())
      ctx.diags.report("V-SPEC", path + ".state", "recurrent cell '{}' must be listed in speculative.rollback_state", r.state);
    const StateAlias* a = proposer_alias(ctx, s.proposer, r.state);
    if (!a || a->read_only || a->input != r.input || a->output != r.output)
      ctx.diags.report("V-SPEC", path, "recurrent entry {{state: {}, input: {}, output: {}}} must match a read_write "
                       "alias of proposer '{}' for that cell", r.state, r.input, r.output, s.proposer);
  }
}

void check_chained(RuleContext& ctx, const Speculative& s, const Speculative::Chained& ch, const Component& proposer) {
  Diagnostics& d = ctx.diags;
  std::string path = std::string(kPath) + ".proposal_execution";
  if (!is_input(proposer, ch.token_embedding_input))
    d.report("V-SPEC", path + ".token_embedding_input", "'{}' is not an input port of proposer '{}'", ch.token_embedding_input, s.proposer);
  if (!is_output(proposer, ch.logits_output))
    d.report("V-SPEC", path + ".logits_output", "'{}' is not an output port of proposer '{}'", ch.logits_output, s.proposer);
  if (ch.recurrent.empty() && !ch.folded_carry_output)
    d.report("V-SPEC", path, "a chained proposer needs `recurrent` state or a `folded_carry_output`");
  if (ch.folded_carry_output) check_folded_carry(ctx, s, ch, proposer);
  check_recurrent(ctx, s, ch);
}

void check_rollback(RuleContext& ctx, const Speculative& s) {
  std::set<std::string> groups;
  for (const std::string& cell_name : s.rollback_state) {
    const StateCell* cell = ctx.cell(cell_name);
    if (!cell) ctx.diags.report("V-SPEC", std::string(kPath) + ".rollback_state", "'{}' is not a state cell", cell_name);
    else if (cell->service_group) groups.insert(*cell->service_group);
  }
  std::vector<std::string> queue(groups.begin(), groups.end());
  while (!queue.empty()) {
    std::string name = queue.back();
    queue.pop_back();
    if (const StateGroup* g = ctx.group(name))
      for (const std::string& next : g->cascade)
        if (groups.insert(next).second) queue.push_back(next);
  }
  for (const std::string& name : groups) {
    const StateGroup* g = ctx.group(name);
    if (g && g->rollback_positions.value_or(0) < s.max_proposal_width)
      ctx.diags.report("V-SPEC", wf_path("serving.state_service.groups." + name + ".capabilities.rollback_positions"),
                       "group '{}' rolls back {} positions but max_proposal_width is {}; a rejected proposal could not "
                       "be undone", name, g->rollback_positions.value_or(0), s.max_proposal_width);
  }
}

void check_effect(RuleContext& ctx, const Speculative& s, const std::string& domain, const std::string& where) {
  const Effect* e = find_named(ctx.wf.effects, domain);
  if (!e) return;
  if (e->safety == Effect::Safety::kNone || (e->safety == Effect::Safety::kRewindable && e->max_depth < s.max_proposal_width))
    ctx.diags.report("V-SPEC", wf_path("effects." + domain + ".speculation_safety"), "effect '{}' runs {} but is {}; it "
                     "must be clonable or rewindable by at least {} positions", domain, where,
                     e->safety == Effect::Safety::kNone ? "not speculation-safe" : fmt::format("rewindable by only {}", e->max_depth),
                     s.max_proposal_width);
}

// The speculative region is every component of the innermost loop that invokes both the proposer
// and the target; without such a loop it is those two components.
void check_effects(RuleContext& ctx, const Speculative& s) {
  const auto& loops = ctx.flow.loops;
  bool found = false;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    auto both = [&](std::size_t k) { return loops[k].components.count(s.proposer) && loops[k].components.count(s.target); };
    if (!both(i)) continue;
    bool innermost = true;
    for (std::size_t child : loops[i].children) innermost &= !both(child);
    if (!innermost) continue;
    found = true;
    for (const std::string& comp_name : loops[i].components) {
      const Component* comp = ctx.component(comp_name);
      for (const std::string& domain : comp ? comp->effects : std::vector<std::string>{})
        check_effect(ctx, s, domain, "inside the speculative loop " + loops[i].path);
    }
  }
  if (found) return;
  for (const std::string& name : std::set<std::string>{s.proposer, s.target})
    if (const Component* comp = ctx.component(name))
      for (const std::string& domain : comp->effects) check_effect(ctx, s, domain, "in speculative component '" + name + "'");
}

}  // namespace

void check_speculative(RuleContext& ctx) {
  const Speculative& s = *ctx.doc.speculative;
  const Component* proposer = ctx.component(s.proposer);
  if (!proposer)
    ctx.diags.report("V-SPEC", std::string(kPath) + ".proposer", "proposer '{}' is not a workflow component", s.proposer);
  if (!ctx.component(s.target))
    ctx.diags.report("V-SPEC", std::string(kPath) + ".target", "target '{}' is not a workflow component", s.target);
  if (s.chained && proposer) check_chained(ctx, s, *s.chained, *proposer);
  check_rollback(ctx, s);
  check_effects(ctx, s);
}

}  // namespace ogai::metadata::detail
