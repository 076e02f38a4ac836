#include "workflow/plan.h"

#include "workflow/program.h"

namespace ogai::workflow {
namespace {

using metadata::Step;

// Empty names (an absent field) get a slot too: reading it fails as "not defined", as any name does.
void add(SlotTable& t, const std::string& name) { t.add(name); }
void add(SlotTable& t, const std::optional<std::string>& name) {
  if (name) add(t, *name);
}

void add_step_names(SlotTable& t, const Step& step) {
  if (const auto* inv = std::get_if<metadata::InvokeStep>(&step.body)) {
    for (const auto& [port, value] : inv->inputs) add(t, value);
    for (const auto& [port, value] : inv->outputs) add(t, value);
  } else if (const auto* l = std::get_if<metadata::LoopStep>(&step.body)) {
    add(t, l->continue_when);
    add(t, l->max_iterations);
    if (l->iteration) add(t, l->iteration->value);
    for (const auto& c : l->carried) add(t, c.cell), add(t, c.initial), add(t, c.next);
  } else if (const auto* b = std::get_if<metadata::BranchStep>(&step.body)) {
    add(t, b->predicate);
    for (const auto& [name, phi] : b->outputs) {
      add(t, name);
      for (const auto& [key, value] : phi.cases) add(t, value);
      add(t, phi.default_value);
    }
  } else if (const auto* e = std::get_if<metadata::EmitStep>(&step.body)) {
    add(t, e->value), add(t, e->when), add(t, e->valid_length);
  }
}

SlotTable collect_slots(const metadata::Workflow& wf) {
  SlotTable t;
  for (const auto& [name, input] : wf.inputs) add(t, name), add(t, input.present_as);
  for (const auto& [name, cell] : wf.state)
    add(t, name), add(t, cell.initializer), add(t, cell.recurrence.increment), add(t, cell.recurrence.max);
  if (wf.serving) {
    add(t, wf.serving->active), add(t, wf.serving->done), add(t, wf.serving->accepted_len);
    for (const auto& [name, group] : wf.serving->groups) {
      add(t, group.logical_lengths), add(t, group.total_length);
      if (group.update) add(t, group.update->write_indices), add(t, group.update->capacity);
    }
  }
  for_each_step(wf.steps, [&](const Step& step) { add_step_names(t, step); });
  return t;
}

bool feeds_scatter_destinations(const metadata::Workflow& wf, const metadata::InvokeStep& step) {
  if (!wf.serving) return false;
  for (const auto& [name, group] : wf.serving->groups) {
    if (!group.update || group.update->kind != metadata::StateUpdate::Kind::kIndexedScatter) continue;
    const std::string* port = metadata::find_named(group.update->write_indices_ports, step.component);
    if (port && metadata::find_named(step.inputs, *port)) return true;
  }
  return false;
}

std::optional<ContractCheck> port_check(const metadata::NamedMap<metadata::TensorContract>& ports,
                                        const std::string& port) {
  const auto* contract = metadata::find_named(ports, port);
  if (!contract) return std::nullopt;
  return compile_contract(*contract, {});  // port contracts pin every symbol within the invoke
}

InvokePlan plan_invoke(const Program& p, const metadata::InvokeStep& step) {
  const auto& wf = p.workflow();
  InvokePlan plan;
  plan.component = metadata::find_named(wf.components, step.component);
  if (auto it = p.sessions.find(step.component); it != p.sessions.end()) plan.session = &it->second;
  if (auto it = p.adapters.find(step.component); it != p.adapters.end()) plan.adapter = it->second.get();
  const metadata::ComponentPorts empty;
  const auto& ports = plan.component ? plan.component->ports : empty;
  for (const auto& [port, value] : step.inputs) {
    plan.in_ports.push_back(port);
    plan.in_slots.push_back(*p.slots.find(value));
    plan.in_checks.push_back(port_check(ports.inputs, port));
  }
  for (const auto& [port, value] : step.outputs) {
    plan.out_ports.push_back(port);
    plan.out_slots.push_back(*p.slots.find(value));
    plan.out_checks.push_back(port_check(ports.outputs, port));
  }
  plan.scatter_check = feeds_scatter_destinations(wf, step);
  if (plan.component) plan.termination = termination_ports(*plan.component, plan.in_ports);
  return plan;
}

EmitPlan plan_emit(const Program& p, const metadata::EmitStep& step) {
  EmitPlan plan;
  plan.output = metadata::find_named(p.workflow().outputs, step.output);
  plan.mode = step.mode == "append"  ? EmitPlan::Mode::kAppend
              : step.mode == "event" ? EmitPlan::Mode::kEvent
                                     : EmitPlan::Mode::kReplace;
  plan.value = *p.slots.find(step.value);
  if (step.when) plan.when = *p.slots.find(*step.when);
  if (step.valid_length) plan.valid_length = *p.slots.find(*step.valid_length);
  if (!plan.output) return plan;
  plan.row_wise = p.row_wise.count(step.output) && plan.output->contract.batch_layout.is_request_aligned();
  plan.check = compile_contract(plan.output->contract, p.dynamic_symbols);
  return plan;
}

LoopPlan plan_loop(const Program& p, const metadata::LoopStep& loop) {
  LoopPlan plan;
  plan.continue_when = *p.slots.find(loop.continue_when);
  plan.max_iterations = *p.slots.find(loop.max_iterations);
  if (loop.iteration) plan.iteration = *p.slots.find(loop.iteration->value);
  for (const auto& carry : loop.carried) {
    CarryPlan c;
    c.carry = &carry;
    c.cell = metadata::find_named(p.workflow().state, carry.cell);
    c.cell_slot = *p.slots.find(carry.cell);
    c.next_slot = *p.slots.find(carry.next);
    if (c.cell) {
      const std::string& from = carry.initial ? *carry.initial : c.cell->initializer;
      c.initial_slot = *p.slots.find(from);
      c.check = compile_contract(c.cell->contract, p.dynamic_symbols);
    }
    plan.carries.push_back(std::move(c));
  }
  return plan;
}

}  // namespace

Slot SlotTable::add(const std::string& name) {
  auto [it, added] = index_.emplace(name, static_cast<Slot>(names_.size()));
  if (added) names_.push_back(name);
  return it->second;
}

std::optional<Slot> SlotTable::find(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

void build_plans(Program& p) {
  const auto& wf = p.workflow();
  p.slots = collect_slots(wf);
  for_each_step(wf.steps, [&](const Step& step) {
    if (const auto* inv = std::get_if<metadata::InvokeStep>(&step.body))
      p.invokes.emplace(inv, plan_invoke(p, *inv));
    else if (const auto* e = std::get_if<metadata::EmitStep>(&step.body))
      p.emits.emplace(e, plan_emit(p, *e));
    else if (const auto* l = std::get_if<metadata::LoopStep>(&step.body))
      p.loops.emplace(l, plan_loop(p, *l));
  });
}

}  // namespace ogai::workflow
