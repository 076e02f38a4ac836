// Internal: the context the V-* document rules share, and one entry point per rule area.
//   rules_flow.cc        V-INVOKE V-SEQ V-LOOP V-BRANCH V-EMIT (+ the V-IN presence rule): the SSA walk
//   rules_types.cc       V-TYPE
//   rules_io.cc          V-IN V-OUT
//   rules_components.cc  V-COMP V-EFFECT V-ROW
//   rules_state.cc       V-STATE V-LIFE
//   rules_groups.cc      V-GROUP V-LAYER V-SERVE
//   rules_update.cc      V-UPDATE V-ROLE
//   rules_speculative.cc V-SPEC
//   rules_document.cc    V-CAP V-GEN
//   rules_preprocessing.cc V-PREPROC
//   rules_profiles.cc    V-PROFILE
//   rules_adapters.cc    V-ADAPTER
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "metadata/diagnostics.h"
#include "metadata/document.h"

namespace ogai::metadata::detail {

// What the SSA walk learned, for the rules that run after it.
struct FlowFacts {
  std::map<std::string, std::optional<TensorContract>> values;  // every defined value (inputs, cells, SSA)
  std::set<std::string> emitted_values;
  std::map<std::string, int> invoke_count;  // component -> invocations
  struct Loop {
    std::string path;
    std::set<std::string> components;  // invoked anywhere inside its setup or body
    std::vector<std::size_t> children;  // loops nested in it
  };
  std::vector<Loop> loops;
  bool nested_control_flow = false, loop_induction = false, typed_emit = false, streaming_emit = false,
       emit_valid_length = false;
};

struct RuleContext {
  const Document& doc;
  const Workflow& wf;
  Diagnostics& diags;
  FlowFacts flow;

  const WorkflowInput* input(const std::string& name) const { return find_named(wf.inputs, name); }
  const WorkflowOutput* output(const std::string& name) const { return find_named(wf.outputs, name); }
  const Component* component(const std::string& name) const { return find_named(wf.components, name); }
  const StateCell* cell(const std::string& name) const { return find_named(wf.state, name); }
  const StateGroup* group(const std::string& name) const {
    return wf.serving ? find_named(wf.serving->groups, name) : nullptr;
  }
  // The contract of a value defined anywhere, when known.
  const TensorContract* value_contract(const std::string& name) const;
  bool value_defined(const std::string& name) const { return flow.values.count(name) != 0; }
};

// Paths.
inline const std::string kWorkflowPath = "pipeline.workflow";
std::string wf_path(std::string_view rest);  // pipeline.workflow.<rest>

// Contract predicates used by several rules.
bool is_integer_contract(const TensorContract& c);
bool is_bool_contract(const TensorContract& c);
bool is_float_contract(const TensorContract& c);
bool is_scalar_or_single(const TensorContract& c);  // rank 0, or rank 1 with shape [1]

void check_flow(RuleContext& ctx);
// The contract of every value the workflow defines (SSA walk without diagnostics).
std::map<std::string, std::optional<TensorContract>> workflow_values(const Document& doc);
void check_types(RuleContext& ctx);
void check_io(RuleContext& ctx);
void check_components(RuleContext& ctx);
void check_state(RuleContext& ctx);
void check_groups(RuleContext& ctx);
void check_updates_and_roles(RuleContext& ctx);
void check_speculative(RuleContext& ctx);
void check_capabilities(RuleContext& ctx);
void check_package_sections(RuleContext& ctx);
void check_adapters(const Document& doc, Diagnostics& diags);  // V-ADAPTER (no workflow needed)
void check_preprocessing(RuleContext& ctx);  // V-PREPROC
void check_profiles(const Document& doc, const Workflow* wf, Diagnostics& diags);  // V-PROFILE (wf may be null)
// generation.overrides need workflow inputs: each is reported when the document has no workflow.
void check_generation_without_workflow(const Document& doc, Diagnostics& diags);
// The 30 built-in capability ids of v1 (an unknown id is not a document defect: runnable.h).
const std::set<std::string_view>& builtin_capabilities();

}  // namespace ogai::metadata::detail
