// Load-time plans of a workflow program (digest §§3-5): every value name the workflow mentions is
// bound to a slot of a flat vector (a request's store), and each invoke, emit and loop has its
// slots, component, session and compiled contracts resolved once, so that running a step looks
// nothing up by name, formats nothing and compiles no contract.
//
// Built by prepare_program() (program.h) from the steps the Program owns; immutable afterwards
// and thread-safe to read. A plan points into the Program's package: it lives as long as the
// Program (moving a Program keeps the steps where they are).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "metadata/workflow.h"
#include "ort/session.h"
#include "workflow/termination.h"
#include "workflow/value_check.h"

namespace ogai::workflow {

using Slot = std::uint32_t;

// Value names <-> slots. Every name a workflow document mentions as a value (inputs, present_as
// flags, state cells and their initializers, step inputs and outputs, loop and branch fields,
// emit fields, serving fields) has a slot.
class SlotTable {
 public:
  Slot add(const std::string& name);  // the name's slot, added when new
  std::optional<Slot> find(const std::string& name) const;
  const std::string& name(Slot slot) const { return names_[slot]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, Slot> index_;
  std::vector<std::string> names_;
};

// One `invoke`: its component, and for an ONNX component its session and bound ports in order
// with their value slots and compiled port contracts (no contract: the port is not declared).
struct InvokePlan {
  const metadata::Component* component = nullptr;  // null: undeclared (refused at load)
  const ort::Session* session = nullptr;           // ONNX components
  const class Adapter* adapter = nullptr;          // adapter components (Program::adapters)
  std::vector<std::string> in_ports, out_ports;
  std::vector<Slot> in_slots, out_slots;
  std::vector<std::optional<ContractCheck>> in_checks, out_checks;
  bool scatter_check = false;  // a fixed-capacity state service group feeds it destinations
  std::optional<TerminationPorts> termination;  // a termination predicate (termination.h)
};

// One `emit`: the output it publishes into (null: undeclared, refused when the emit runs) and the
// slots it reads.
struct EmitPlan {
  enum class Mode { kReplace, kAppend, kEvent };
  const metadata::WorkflowOutput* output = nullptr;
  Mode mode = Mode::kReplace;
  Slot value = 0;
  std::optional<Slot> when, valid_length;
  bool row_wise = false;               // published per row (when / valid_length, request axis)
  std::optional<ContractCheck> check;  // the output's contract, dynamic symbols free
};

// One `carried` entry of a loop: the cell (null: undeclared, refused when the loop starts), its
// slot, the slots of its next and initial values, its compiled contract.
struct CarryPlan {
  const metadata::Carry* carry = nullptr;
  const metadata::StateCell* cell = nullptr;
  Slot cell_slot = 0, next_slot = 0, initial_slot = 0;
  std::optional<ContractCheck> check;
};

// One `loop`: the slots of its control values and its carries in document order.
struct LoopPlan {
  Slot continue_when = 0, max_iterations = 0;
  std::optional<Slot> iteration;
  std::vector<CarryPlan> carries;
};

// Calls f(step) for every step of `steps`, nested ones included (sequence, loop setup and body,
// branch cases and default), in document order.
template <class F>
void for_each_step(const std::vector<metadata::Step>& steps, F&& f) {
  for (const auto& step : steps) {
    f(step);
    if (const auto* s = std::get_if<metadata::SequenceStep>(&step.body)) {
      for_each_step(s->steps, f);
    } else if (const auto* l = std::get_if<metadata::LoopStep>(&step.body)) {
      for_each_step(l->setup, f);
      for_each_step(l->steps, f);
    } else if (const auto* b = std::get_if<metadata::BranchStep>(&step.body)) {
      for (const auto& c : b->cases) for_each_step(c.body, f);
      for_each_step(b->default_step, f);
    }
  }
}

struct Program;
// Fills the program's slot table and plans (called by prepare_program once its sessions are open).
void build_plans(Program& program);

}  // namespace ogai::workflow
