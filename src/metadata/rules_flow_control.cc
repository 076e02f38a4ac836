// Loops, branches and emits of the SSA walk (see rules_flow.cc for scoping).
#include <deque>

#include <fmt/format.h>

#include "metadata/flow_walker.h"

namespace ogai::metadata::detail {
namespace {

std::int64_t varying_axis(const StateCell& cell) {
  return cell.recurrence.kind == Recurrence::Kind::kInvariant ? -1 : cell.recurrence.axis;
}

}  // namespace

void FlowWalker::check_carry_entry(const Step& s, const LoopStep& l, Frame& lf) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < l.carried.size(); ++i) {
    const Carry& carry = l.carried[i];
    std::string path = fmt::format("{}.carried[{}]", s.path, i);
    const StateCell* cell = ctx_.cell(carry.cell);
    if (!cell) {
      ctx_.diags.report("V-LOOP", path + ".cell", "carried cell '{}' is not declared in pipeline.workflow.state", carry.cell);
      continue;
    }
    if (!seen.insert(carry.cell).second)
      ctx_.diags.report("V-LOOP", path + ".cell", "cell '{}' is carried twice by the same loop", carry.cell);
    const std::string& initial = carry.initial ? *carry.initial : cell->initializer;
    std::string ipath = carry.initial ? path + ".initial" : wf_path("state." + carry.cell + ".initializer");
    const TensorContract* have = use(lf, initial, ipath, "V-LOOP", "initial value");
    if (have && !contracts_compatible(*have, cell->contract, varying_axis(*cell)))
      ctx_.diags.report("V-LOOP", ipath, "initial value '{}' ({}) is not compatible with cell '{}' ({})", initial,
                        contract_text(*have), carry.cell, contract_text(cell->contract));
    std::string rpath = wf_path("state." + carry.cell + ".recurrence");
    for (const std::string* bound : {&cell->recurrence.increment, &cell->recurrence.max}) {
      if (bound->empty()) continue;
      const TensorContract* c = use(lf, *bound, rpath, "V-LOOP", "recurrence bound");
      if (c && !(is_integer_contract(*c) && is_scalar_or_single(*c)))
        ctx_.diags.report("V-LOOP", rpath, "recurrence bound '{}' is {}; expected an integer scalar (rank 0 or "
                          "shape [1])", *bound, contract_text(*c));
    }
  }
  for (const Carry& carry : l.carried)
    if (const StateCell* cell = ctx_.cell(carry.cell)) lf.values[carry.cell] = cell->contract;
}

void FlowWalker::check_loop_controls(const Step& s, const LoopStep& l, const Frame& outer, const Frame& lf) {
  (void)outer;
  if (const TensorContract* c = use(lf, l.max_iterations, s.path + ".max_iterations", "V-LOOP", "max_iterations")) {
    if (!is_integer_contract(*c) || !is_scalar_or_single(*c))
      ctx_.diags.report("V-LOOP", s.path + ".max_iterations", "max_iterations '{}' is {}; expected an integer "
                        "scalar (rank 0 or shape [1])", l.max_iterations, contract_text(*c));
  }
  const auto* found = lookup(lf, l.continue_when);
  if (!found) {
    ctx_.diags.report("V-LOOP", s.path + ".continue_when", "continue_when '{}' is not defined when the loop "
                      "starts; expected a carried cell, the iteration value or a value from before the loop body "
                      "(the loop tests it before iteration 0)", l.continue_when);
  } else if (found->has_value()) {
    const TensorContract& c = **found;
    if (!is_bool_contract(c) || c.rank > 1)
      ctx_.diags.report("V-LOOP", s.path + ".continue_when", "continue_when '{}' is {}; expected bool of rank 0 or 1",
                        l.continue_when, contract_text(c));
  }
}

void FlowWalker::check_carry_next(const Step& s, const LoopStep& l, const Frame& body) {
  for (std::size_t i = 0; i < l.carried.size(); ++i) {
    const Carry& carry = l.carried[i];
    const StateCell* cell = ctx_.cell(carry.cell);
    std::string path = fmt::format("{}.carried[{}].next", s.path, i);
    const auto* next = lookup(body, carry.next);  // the body, the carried cells or the outer scope
    if (!next) {
      bool escaped = branch_defined_.count(carry.next) && cell && cell->scope == StateScope::kSession;
      if (escaped)
        ctx_.diags.report("V-BRANCH", path, "session-state update '{}' is defined inside a branch case; it must "
                          "escape through a branch phi output", carry.next);
      else
        ctx_.diags.report("V-LOOP", path, "next value '{}' is not defined in the loop body; expected a value the "
                          "body produces, a carried cell or a value defined before the loop", carry.next);
      continue;
    }
    if (cell && next->has_value() && !contracts_compatible(**next, cell->contract, varying_axis(*cell)))
      ctx_.diags.report("V-LOOP", path, "next value '{}' ({}) is not compatible with cell '{}' ({}) outside its "
                        "varying axis", carry.next, contract_text(**next), carry.cell, contract_text(cell->contract));
  }
}

void FlowWalker::on_loop(const Step& s, const LoopStep& l, Frame& frame, std::optional<std::size_t> loop) {
  ctx_.flow.nested_control_flow = true;
  std::size_t index = ctx_.flow.loops.size();
  ctx_.flow.loops.push_back({s.path, {}, {}});
  parents_[index] = loop;
  if (loop) ctx_.flow.loops[*loop].children.push_back(index);

  walk(l.setup, frame, index);  // setup values belong to the enclosing scope
  Frame lf{&frame, {}, {}, frame.in_branch_case};
  check_carry_entry(s, l, lf);
  if (l.iteration) {
    ctx_.flow.loop_induction = true;
    const TensorContract& c = l.iteration->contract;
    bool ok = canonical_dtype(c.dtype) == DataType::kInt64 &&
              (c.rank == 0 || (c.rank == 1 && (!c.shape || c.shape->size() == 1)));
    if (!ok)
      ctx_.diags.report("V-LOOP", s.path + ".iteration.contract", "iteration value is {}; expected int64 of rank 0 "
                        "or rank 1 with a single dim", contract_text(c));
    define(lf, l.iteration->value, c, s.path + ".iteration.value");
  }
  check_loop_controls(s, l, frame, lf);
  if (l.steps.empty()) ctx_.diags.report("V-SEQ", s.path + ".steps", "a loop body needs at least one step");
  Frame body{&lf, {}, {}, frame.in_branch_case};
  walk(l.steps, body, index);
  check_carry_next(s, l, body);
  for (const Carry& carry : l.carried)
    if (const StateCell* cell = ctx_.cell(carry.cell)) frame.values[carry.cell] = cell->contract;
}

void FlowWalker::on_branch(const Step& s, const BranchStep& b, Frame& frame, std::optional<std::size_t> loop) {
  ctx_.flow.nested_control_flow = true;
  if (const TensorContract* p = use(frame, b.predicate, s.path + ".predicate", "V-BRANCH", "predicate")) {
    if (!(is_bool_contract(*p) || is_integer_contract(*p)) || !is_scalar_or_single(*p))
      ctx_.diags.report("V-BRANCH", s.path + ".predicate", "predicate '{}' is {}; expected bool or integer of rank "
                        "0 or shape [1]", b.predicate, contract_text(*p));
  }
  if (b.cases.empty()) ctx_.diags.report("V-SEQ", s.path + ".cases", "a branch needs at least one case");
  std::deque<Frame> frames;
  std::map<std::string, Frame*> by_case;
  auto open_case = [&](const std::string& key, const std::vector<Step>& body) {
    Frame& cf = frames.emplace_back(Frame{&frame, {}, {}, true});
    for (const auto& [input, flag] : guarded_)
      if (flag == b.predicate && (key == "true" || key == "1")) cf.present.insert(input);
    walk(body, cf, loop);
    return &cf;
  };
  for (const BranchCase& c : b.cases) by_case[c.key] = open_case(c.key, c.body);
  Frame* default_frame = b.default_step.empty() ? nullptr : open_case("", b.default_step);
  for (const auto& [name, phi] : b.outputs) {
    std::string path = s.path + ".outputs." + name;
    std::optional<TensorContract> contract;
    for (const BranchCase& c : b.cases) {
      const std::string* value = find_named(phi.cases, c.key);
      if (!value) {
        ctx_.diags.report("V-BRANCH", path + ".cases", "phi output '{}' does not map case '{}'; every case must "
                          "produce it", name, c.key);
      } else if (const TensorContract* t = use(*by_case[c.key], *value, path + ".cases." + c.key, "V-BRANCH", "phi value")) {
        if (!contract) contract = *t;
      }
    }
    for (const auto& [key, value] : phi.cases)
      if (!by_case.count(key)) ctx_.diags.report("V-BRANCH", path + ".cases." + key, "phi output maps case '{}', which the branch does not have", key);
    if (default_frame && !phi.default_value)
      ctx_.diags.report("V-BRANCH", path, "the branch has a default case, so phi output '{}' needs a default value", name);
    if (!default_frame && phi.default_value)
      ctx_.diags.report("V-BRANCH", path + ".default", "phi output '{}' maps a default, but the branch has no default case", name);
    if (default_frame && phi.default_value) use(*default_frame, *phi.default_value, path + ".default", "V-BRANCH", "phi value");
    define(frame, name, contract, path);
  }
}

}  // namespace ogai::metadata::detail
