// Emits of the SSA walk (V-EMIT), and check_flow(), the walk's entry point.
#include <fmt/format.h>

#include "metadata/flow_walker.h"

namespace ogai::metadata::detail {
namespace {

bool is_singleton(const TensorContract& c) { return c.rank == 0 || is_scalar_or_single(c); }

}  // namespace

void FlowWalker::check_emit_guards(const Step& s, const EmitStep& e, const Frame& frame, const TensorContract* value,
                                   const WorkflowOutput* out) {
  struct Guard {
    const std::optional<std::string>& name;
    const char* key;
    bool integer;
  };
  for (const Guard& g : {Guard{e.when, "when", false}, Guard{e.valid_length, "valid_length", true}}) {
    if (!g.name) continue;
    std::string path = s.path + "." + g.key;
    const TensorContract* c = use(frame, *g.name, path, "V-EMIT", g.key);
    if (!c) continue;
    bool typed = g.integer ? is_integer_contract(*c) : is_bool_contract(*c);
    if (!typed || c->rank > 1)
      ctx_.diags.report("V-EMIT", path, "{} '{}' is {}; expected {} of rank 0 or 1", g.key, *g.name, contract_text(*c),
                        g.integer ? "an integer" : "bool");
    if (!is_singleton(*c) && value && !value->batch_layout.is_request_aligned())
      ctx_.diags.report("V-EMIT", path, "a per-row {} needs a request_aligned emitted value; '{}' is {}", g.key,
                        e.value, batch_layout_name(value->batch_layout.kind));
  }
  bool ragged = e.when || e.valid_length;
  if (ragged && out && !out->contract.batch_layout.is_request_aligned())
    ctx_.diags.report("V-EMIT", s.path + ".output", "a ragged emit (when/valid_length) needs a request_aligned "
                      "output; output '{}' is {}", e.output, batch_layout_name(out->contract.batch_layout.kind));
  if (e.valid_length && value && out) {
    const TensorContract& oc = out->contract;
    bool ok = value->rank >= 1 && oc.rank >= 1 && contracts_compatible(*value, oc, value->rank - 1);
    if (!ok)
      ctx_.diags.report("V-EMIT", s.path + ".valid_length", "with valid_length, value '{}' ({}) and output '{}' ({}) "
                        "need rank >= 1, the same dtype and rank and equal fixed dims except the last axis",
                        e.value, contract_text(*value), e.output, contract_text(oc));
  }
}

void FlowWalker::on_emit(const Step& s, const EmitStep& e, const Frame& frame) {
  ctx_.flow.typed_emit = true;
  if (e.mode == "event") ctx_.flow.streaming_emit = true;
  if (e.valid_length) ctx_.flow.emit_valid_length = true;
  ctx_.flow.emitted_values.insert(e.value);
  const WorkflowOutput* out = ctx_.output(e.output);
  if (!out)
    ctx_.diags.report("V-EMIT", s.path + ".output", "output '{}' is not declared in pipeline.workflow.outputs", e.output);
  const TensorContract* value = use(frame, e.value, s.path + ".value", "V-EMIT", "emitted value");
  check_emit_guards(s, e, frame, value, out);
  if (value && out) {
    const TensorContract& oc = out->contract;
    if (value->batch_layout != oc.batch_layout)
      ctx_.diags.report("V-EMIT", s.path + ".value", "value '{}' has batch layout {} but output '{}' has {}; the "
                        "emitted layout must equal the output layout", e.value,
                        batch_layout_name(value->batch_layout.kind), e.output, batch_layout_name(oc.batch_layout.kind));
    std::int64_t axis = e.mode == "append" ? e.axis.value_or(value->rank - 1) : -1;
    if (e.mode != "event" && !contracts_compatible(*value, oc, axis))
      ctx_.diags.report("V-EMIT", s.path + ".value", "value '{}' ({}) does not match output '{}' ({})", e.value,
                        contract_text(*value), e.output, contract_text(oc));
    if (ctx_.wf.serving && value->batch_layout.kind == BatchLayout::Kind::kShared && value->rank > 0)
      ctx_.diags.report("V-EMIT", s.path + ".value", "a serving workflow may not emit a shared value of rank > 0 "
                        "('{}' is {}); declare its request axis", e.value, contract_text(*value));
  }
  auto [it, first] = emit_modes_.try_emplace(e.output, e.mode, BatchLayout::Kind::kShared);
  if (!first && it->second.first != e.mode)
    ctx_.diags.report("V-EMIT", s.path + ".mode", "output '{}' is emitted with mode '{}' here and '{}' elsewhere; all "
                      "emits to one output must agree", e.output, e.mode, it->second.first);
}

void check_flow(RuleContext& ctx) { FlowWalker(ctx).run(); }

std::map<std::string, std::optional<TensorContract>> workflow_values(const Document& doc) {
  if (!doc.workflow) return {};
  Diagnostics scratch;
  RuleContext ctx{doc, *doc.workflow, scratch, {}};
  check_flow(ctx);
  return ctx.flow.values;
}

}  // namespace ogai::metadata::detail
