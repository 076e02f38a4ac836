// The SSA walk over pipeline.workflow.steps: V-INVOKE, V-SEQ, V-LOOP, V-BRANCH, V-EMIT and the
// V-IN rule that an optional input is read only where its presence is known.
//
// Scoping: workflow inputs (and present_as flags) are visible everywhere; a value is visible after
// the step that defines it, in the same frame and the frames nested in it. A loop's setup runs in
// the enclosing frame (its values stay visible after the loop, as in the reference); the loop
// opens a frame for its carried cells and iteration value, and another for its body, whose values
// do not escape. A carry's `next` is looked up from the body: a body value, a carried cell or an
// outer value. After the loop the carried cell names mean their final values. Each branch case
// has its own frame; only the phi outputs escape.
#include <fmt/format.h>

#include "metadata/flow_walker.h"

namespace ogai::metadata::detail {

FlowWalker::FlowWalker(RuleContext& ctx) : ctx_(ctx) {}

void FlowWalker::run() {
  Frame root;
  for (const auto& [name, in] : ctx_.wf.inputs) {
    root.values[name] = in.contract;
    ctx_.flow.values[name] = in.contract;
    if (in.present_as) {
      TensorContract flag{"bool", 0, std::vector<ShapeDim>{}, false, {}};
      root.values[*in.present_as] = flag;
      ctx_.flow.values[*in.present_as] = flag;
      if (!in.default_value) guarded_[name] = *in.present_as;
    }
  }
  for (const auto& [name, cell] : ctx_.wf.state) ctx_.flow.values.emplace(name, cell.contract);
  if (ctx_.wf.steps.empty()) ctx_.diags.report("V-SEQ", wf_path("steps"), "the workflow has no steps; expected at least one");
  walk(ctx_.wf.steps, root, std::nullopt);
}

// ---- scope ---------------------------------------------------------------------------------

const std::optional<TensorContract>* FlowWalker::lookup(const Frame& frame, const std::string& name) const {
  for (const Frame* f = &frame; f; f = f->parent) {
    auto it = f->values.find(name);
    if (it != f->values.end()) return &it->second;
  }
  return nullptr;
}

bool FlowWalker::presence_known(const Frame& frame, const std::string& name) const {
  for (const Frame* f = &frame; f; f = f->parent)
    if (f->present.count(name)) return true;
  return false;
}

const TensorContract* FlowWalker::use(const Frame& frame, const std::string& name, const std::string& path,
                                      const char* rule, std::string_view what) {
  const auto* found = lookup(frame, name);
  if (!found) {
    ctx_.diags.report(rule, path, "{} '{}' is not defined before this point (expected a workflow input, a "
                      "value produced earlier in scope, a carried cell or a loop iteration value)", what, name);
    return nullptr;
  }
  auto guard = guarded_.find(name);
  if (guard != guarded_.end() && !presence_known(frame, name))
    ctx_.diags.report("V-IN", path, "optional input '{}' is read outside the 'true' case of a branch on its "
                      "presence flag '{}'", name, guard->second);
  return found->has_value() ? &**found : nullptr;
}

void FlowWalker::define(Frame& frame, const std::string& name, const std::optional<TensorContract>& contract,
                        const std::string& path) {
  if (lookup(frame, name)) {
    ctx_.diags.report("V-INVOKE", path, "value '{}' is already defined; SSA values are defined once", name);
    return;
  }
  if (ctx_.cell(name)) {
    ctx_.diags.report("V-INVOKE", path, "value '{}' is the name of a state cell; a step cannot redefine it "
                      "(carry it with a loop instead)", name);
    return;
  }
  frame.values[name] = contract;
  ctx_.flow.values[name] = contract;
  if (frame.in_branch_case) branch_defined_.insert(name);
}

// ---- steps ---------------------------------------------------------------------------------

void FlowWalker::walk(const std::vector<Step>& steps, Frame& frame, std::optional<std::size_t> loop) {
  for (const Step& s : steps) step(s, frame, loop);
}

void FlowWalker::step(const Step& s, Frame& frame, std::optional<std::size_t> loop) {
  if (const auto* invoke = std::get_if<InvokeStep>(&s.body)) on_invoke(s, *invoke, frame, loop);
  else if (const auto* seq = std::get_if<SequenceStep>(&s.body)) {
    if (seq->steps.empty()) ctx_.diags.report("V-SEQ", s.path + ".steps", "a sequence needs at least one step");
    walk(seq->steps, frame, loop);
  } else if (const auto* l = std::get_if<LoopStep>(&s.body)) on_loop(s, *l, frame, loop);
  else if (const auto* b = std::get_if<BranchStep>(&s.body)) on_branch(s, *b, frame, loop);
  else if (const auto* e = std::get_if<EmitStep>(&s.body)) on_emit(s, *e, frame);
}

void FlowWalker::note_component(const std::string& component, std::optional<std::size_t> loop) {
  ctx_.flow.invoke_count[component]++;
  for (auto l = loop; l; l = parents_[*l]) ctx_.flow.loops[*l].components.insert(component);
}

void FlowWalker::on_invoke(const Step& s, const InvokeStep& inv, Frame& frame, std::optional<std::size_t> loop) {
  const Component* comp = ctx_.component(inv.component);
  note_component(inv.component, loop);
  if (!comp)
    ctx_.diags.report("V-INVOKE", s.path + ".component", "pipeline.workflow lowering failed: unknown component "
                      "'{}'; expected one of the components declared in pipeline.workflow.components", inv.component);
  bool declared = comp && !comp->ports.inferred();
  for (const auto& [port, value] : inv.inputs) {
    std::string path = s.path + ".inputs." + port;
    const TensorContract* have = use(frame, value, path, "V-INVOKE", "input value");
    const TensorContract* want = declared ? find_named(comp->ports.inputs, port) : nullptr;
    if (declared && !want)
      ctx_.diags.report("V-INVOKE", path, "component '{}' declares no input port '{}'", inv.component, port);
    if (have && want && !contracts_compatible(*have, *want))
      ctx_.diags.report("V-INVOKE", path, "value '{}' ({}) is not compatible with input port '{}' ({}); dtype, "
                        "rank and fixed dims must agree", value, contract_text(*have), port, contract_text(*want));
  }
  if (declared) {
    for (const auto& [port, contract] : comp->ports.inputs)
      if (!contract.optional && !find_named(inv.inputs, port))
        ctx_.diags.report("V-INVOKE", s.path + ".inputs", "required input port '{}' of component '{}' is not bound",
                          port, inv.component);
  }
  for (const auto& [port, value] : inv.outputs) {
    std::string path = s.path + ".outputs." + port;
    const TensorContract* contract = declared ? find_named(comp->ports.outputs, port) : nullptr;
    if (declared && !contract)
      ctx_.diags.report("V-INVOKE", path, "component '{}' declares no output port '{}'", inv.component, port);
    define(frame, value, contract ? std::optional<TensorContract>(*contract) : std::nullopt, path);
  }
}

}  // namespace ogai::metadata::detail
