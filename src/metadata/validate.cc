#include "metadata/validate.h"

#include "metadata/rules.h"

namespace ogai::metadata {
namespace {

void check_legacy_io(const ModelIo& io, Diagnostics& d) {
  if (io.kv_inputs.size() != io.kv_outputs.size())
    d.report("V-ABI", "model.io.kv_outputs", "kv_inputs ({}) and kv_outputs ({}) pair positionally and must have the "
             "same length", io.kv_inputs.size(), io.kv_outputs.size());
  if (io.cross_kv_inputs.size() != io.cross_kv_outputs.size())
    d.report("V-ABI", "model.io.cross_kv_outputs", "cross_kv_inputs ({}) and cross_kv_outputs ({}) must have the same "
             "length", io.cross_kv_inputs.size(), io.cross_kv_outputs.size());
  if (io.sequence_source == "token_ids" && !io.token_input)
    d.report("V-ABI", "model.io.token_input", "sequence_source token_ids needs token_input");
  if (io.sequence_source == "inputs_embeds" && !io.inputs_embeds_input)
    d.report("V-ABI", "model.io.inputs_embeds_input", "sequence_source inputs_embeds needs inputs_embeds_input");
  if (io.static_cache) {
    const auto& sc = *io.static_cache;
    std::size_t n = sc.key_cache_inputs.size();
    if (n == 0 || sc.value_cache_inputs.size() != n || sc.key_cache_outputs.size() != n || sc.value_cache_outputs.size() != n)
      d.report("V-ABI", "model.io.static_cache", "the four static-cache port lists must be non-empty and of equal length");
  }
}

void check_model(const Document& doc, Diagnostics& d) {
  if (!doc.model) return;
  if (doc.model->attention && doc.model->attention->sliding_window && *doc.model->attention->sliding_window < 1)
    d.report("R7", "model.attention.sliding_window", "sliding_window {} is not a window; expected >= 1 (omit it for "
             "full attention)", *doc.model->attention->sliding_window);
  if (!doc.model->io) return;
  if (doc.workflow)
    d.report("V-ABI", "model.io", "model.io is the legacy import-only decoder ABI and cannot sit next to "
             "pipeline.workflow; declare ports with components.<c>.ports.roles and state groups instead");
  else
    check_legacy_io(*doc.model->io, d);
}

void check_workflow(const Document& doc, Diagnostics& diags) {
  detail::RuleContext ctx{doc, *doc.workflow, diags, {}};
  detail::check_flow(ctx);
  detail::check_types(ctx);
  detail::check_io(ctx);
  detail::check_components(ctx);
  detail::check_state(ctx);
  detail::check_groups(ctx);
  detail::check_updates_and_roles(ctx);
  detail::check_capabilities(ctx);
  detail::check_package_sections(ctx);
  if (doc.speculative) detail::check_speculative(ctx);
}

}  // namespace

void validate_document(const Document& doc, Diagnostics& diags) {
  check_model(doc, diags);
  detail::check_adapters(doc, diags);
  if (doc.speculative && !doc.workflow)
    diags.report("V-SPEC", "speculative", "speculative decoding needs a pipeline.workflow with the proposer and target");
  if (doc.workflow) {
    check_workflow(doc, diags);
  } else {  // a document without a workflow is valid (nothing to run is refused at load: runnable.h)
    detail::check_profiles(doc, nullptr, diags);
    detail::check_generation_without_workflow(doc, diags);
  }
}

}  // namespace ogai::metadata
