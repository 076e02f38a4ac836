// V-CAP (capability manifest) and V-GEN (generation defaults and overrides). V-PROFILE is in
// rules_profiles.cc, V-PREPROC in rules_preprocessing.cc.
#include <set>

#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {

// The complete built-in capability vocabulary of v1 (30 identifiers). Extension identifiers
// contain a '.'.
const std::set<std::string_view>& builtin_capabilities() {
  static const std::set<std::string_view> kBuiltin = {
      "kv_cache", "grouped_query_attention", "multi_head_attention", "prefix_cache", "continuous_batching",
      "control_flow_loop", "image_preprocessing_program", "packed_image_outputs", "position_program",
      "multi_axis_positions", "loop_carried_state", "dual_sequence_inputs", "workflow_ssa", "linear_effects",
      "serving_service_contract", "parameter_adapters", "heterogeneous_adapter_batching", "session_state_lease",
      "bounded_state_recurrence", "advisory_state", "adaptive_proposal_budget", "grammar_guidance_adapter",
      "telemetry_adapter", "nested_control_flow", "loop_induction_values", "typed_emit", "streaming_emit",
      "emit_valid_length", "input_presence", "explicit_transfer"};
  return kBuiltin;
}

namespace {

// capability -> why the workflow needs it
std::vector<std::pair<std::string, std::string>> derived_capabilities(const RuleContext& ctx) {
  std::vector<std::pair<std::string, std::string>> out{{"workflow_ssa", "every workflow"}};
  const Workflow& wf = ctx.wf;
  auto add = [&](bool used, const char* cap, const char* why) { if (used) out.emplace_back(cap, why); };
  bool session = false, bounded = false, advisory = false, presence = false, effects = !wf.effects.empty();
  for (const auto& [n, c] : wf.state) {
    session |= c.scope == StateScope::kSession;
    bounded |= c.recurrence.kind == Recurrence::Kind::kBounded;
    advisory |= c.cls == StateClass::kAdvisory;
  }
  for (const auto& [n, in] : wf.inputs) presence |= in.present_as.has_value();
  bool adaptive = false, grammar = false, telemetry = false;
  for (const auto& [n, c] : wf.components) {
    effects |= !c.effects.empty();
    std::string id = c.contract ? c.contract->id : "", abi = c.implementation.abi;
    adaptive |= id == "onnx-genai.adaptive-proposal-budget";
    grammar |= id == "onnx-genai.grammar-guidance" || abi == "onnx-genai.grammar-guidance";
    telemetry |= id == "onnx-genai.telemetry" || abi == "onnx-genai.telemetry";
  }
  add(wf.serving.has_value(), "serving_service_contract", "pipeline.workflow.serving is declared");
  add(session, "session_state_lease", "a state cell has scope: session");
  add(bounded, "bounded_state_recurrence", "a state cell has a bounded recurrence");
  add(advisory, "advisory_state", "a state cell has class: advisory");
  add(presence, "input_presence", "an input declares present_as");
  add(effects, "linear_effects", "effect domains are declared");
  add(ctx.flow.nested_control_flow, "nested_control_flow", "the steps contain a loop or branch");
  add(ctx.flow.loop_induction, "loop_induction_values", "a loop declares an iteration value");
  add(ctx.flow.typed_emit, "typed_emit", "the steps emit outputs");
  add(ctx.flow.streaming_emit, "streaming_emit", "an emit uses mode: event");
  add(ctx.flow.emit_valid_length, "emit_valid_length", "an emit uses valid_length");
  add(ctx.doc.adapters.has_value(), "parameter_adapters", "top-level adapters are declared");
  add(ctx.doc.adapters.has_value(), "heterogeneous_adapter_batching", "top-level adapters are declared");
  add(adaptive, "adaptive_proposal_budget", "a component implements onnx-genai.adaptive-proposal-budget");
  add(grammar, "grammar_guidance_adapter", "a component implements onnx-genai.grammar-guidance");
  add(telemetry, "telemetry_adapter", "a component implements onnx-genai.telemetry");
  return out;
}

void check_generation(RuleContext& ctx, const Generation& g) {
  Diagnostics& d = ctx.diags;
  for (const auto& [field, ov] : g.overrides) {
    std::string path = "generation.overrides." + field;
    const WorkflowInput* in = ctx.input(ov.input);
    if (!in)
      d.report("V-GEN", path + ".input", "override input '{}' is not a workflow input", ov.input);
    else if (in->source.kind != InputSource::Kind::kRequest || in->role.kind != InputRole::Kind::kRuntime)
      d.report("V-GEN", path + ".input", "override input '{}' must be request-sourced with a runtime role (the caller's "
               "value has to reach it)", ov.input);
    if (ov.minimum && ov.maximum && *ov.minimum > *ov.maximum)
      d.report("V-GEN", path + ".constraint", "minimum {} is greater than maximum {}", *ov.minimum, *ov.maximum);
  }
  if (!g.defaults) return;
  const GenerationDefaults& df = *g.defaults;
  if (df.temperature && *df.temperature < 0)
    d.report("V-GEN", "generation.defaults.temperature", "temperature {} is negative; expected >= 0", *df.temperature);
  if (df.top_p && (*df.top_p <= 0 || *df.top_p > 1))
    d.report("V-GEN", "generation.defaults.top_p", "top_p {} is outside (0, 1]", *df.top_p);
  if (df.repetition_penalty && *df.repetition_penalty <= 0)
    d.report("V-GEN", "generation.defaults.repetition_penalty", "repetition_penalty {} must be > 0", *df.repetition_penalty);
  if (df.min_length && df.max_length && *df.min_length > *df.max_length)
    d.report("V-GEN", "generation.defaults.min_length", "min_length {} exceeds max_length {}", *df.min_length, *df.max_length);
}

}  // namespace

void check_capabilities(RuleContext& ctx) {
  const auto& listed = ctx.wf.manifest.capabilities;
  for (const auto& [cap, why] : derived_capabilities(ctx))
    if (std::find(listed.begin(), listed.end(), cap) == listed.end())
      ctx.diags.report("V-CAP", wf_path("manifest.capabilities"), "'{}' is required because {}, but the manifest does "
                       "not list it", cap, why);
}

void check_package_sections(RuleContext& ctx) {
  if (ctx.doc.generation) check_generation(ctx, *ctx.doc.generation);
  check_profiles(ctx.doc, &ctx.wf, ctx.diags);
  check_preprocessing(ctx);  // rules_preprocessing.cc
}

void check_generation_without_workflow(const Document& doc, Diagnostics& diags) {
  if (!doc.generation) return;
  for (const auto& [field, ov] : doc.generation->overrides)
    diags.report("V-GEN", "generation.overrides." + field + ".input", "override input '{}' needs a pipeline.workflow "
                 "that declares it as a request-sourced input; the document has no workflow", ov.input);
}

}  // namespace ogai::metadata::detail
