// V-STATE (state cells against their recurrence and service group) and V-LIFE (ownership and
// release of runtime-managed cells).
#include <fmt/format.h>

#include "metadata/rules.h"

namespace ogai::metadata::detail {
namespace {

void check_session(RuleContext& ctx, const StateCell& cell, const std::string& path) {
  if (!cell.session) return;
  Diagnostics& d = ctx.diags;
  if (cell.scope == StateScope::kInvocation)
    d.report("V-STATE", path + ".session", "an invocation-scoped cell cannot declare a session lease");
  if (cell.session->policy == "copy_on_write")
    d.report("V-STATE", path + ".session.policy", "copy_on_write session leases are not supported");
  if (cell.session->ttl_seconds)
    d.report("V-STATE", path + ".session.ttl_seconds", "ttl_seconds is not supported; the runtime owns session lifetime");
  if (cell.session->optimistic_metadata_version)
    d.report("V-STATE", path + ".session.optimistic_metadata_version", "optimistic_metadata_version is not supported");
}

void check_state_cell(RuleContext& ctx, const std::string& name, const StateCell& cell) {
  Diagnostics& d = ctx.diags;
  std::string path = wf_path("state." + name);
  check_session(ctx, cell, path);
  const Recurrence& rec = cell.recurrence;
  bool varying = rec.kind != Recurrence::Kind::kInvariant;
  if (varying && rec.axis >= cell.contract.rank)
    d.report("V-STATE", path + ".recurrence.axis", "recurrence axis {} is outside the rank-{} cell", rec.axis, cell.contract.rank);
  if (!cell.service_group) return;
  const StateGroup* group = ctx.group(*cell.service_group);
  if (!group) {
    d.report("V-STATE", path + ".service_group", "service group '{}' is not declared in "
             "pipeline.workflow.serving.state_service.groups", *cell.service_group);
    return;
  }
  // Only a cell the state service stores grows by the rows' committed lengths; a workflow-owned
  // growing cell (a loop's growing buffer) may grow by any integer scalar.
  const std::optional<std::string>& accepted = ctx.wf.serving->accepted_len;
  if (rec.kind == Recurrence::Kind::kGrowing && accepted && rec.increment != *accepted)
    d.report("V-STATE", path + ".recurrence.increment", "a cell bound to service group '{}' grows by "
             "serving.accepted_len ('{}'); got '{}'", *cell.service_group, *accepted, rec.increment);
  if (!cell.contract.batch_layout.is_request_aligned())
    d.report("V-STATE", path + ".contract.batch_layout", "a cell bound to service group '{}' must be request_aligned",
             *cell.service_group);
  if (!group->sequence_axis) {
    if (varying)
      d.report("V-STATE", path + ".recurrence", "group '{}' has no sequence_axis, so it accepts only invariant cells",
               *cell.service_group);
    return;
  }
  if (*group->sequence_axis >= cell.contract.rank)
    d.report("V-STATE", path + ".service_group", "group '{}' sequence_axis {} is outside the rank-{} cell",
             *cell.service_group, *group->sequence_axis, cell.contract.rank);
  if (varying && rec.axis != *group->sequence_axis)
    d.report("V-STATE", path + ".recurrence.axis", "recurrence axis {} differs from group '{}' sequence_axis {}", rec.axis,
             *cell.service_group, *group->sequence_axis);
}

void check_lifecycle(RuleContext& ctx, const std::string& name, const StateCell& cell) {
  Diagnostics& d = ctx.diags;
  std::string path = wf_path("state." + name);
  bool managed = cell.management != StateManagement::kWorkflow;
  if (cell.service_group && !managed)
    d.report("V-LIFE", path + ".management", "a cell bound to service group '{}' must be `management: runtime` (the "
             "group is the runtime's storage)", *cell.service_group);
  if (managed && !cell.release_boundary)
    d.report("V-LIFE", path + ".release_boundary", "a runtime- or externally-managed cell must declare a release_boundary");
  if (!managed && cell.release_boundary)
    d.report("V-LIFE", path + ".release_boundary", "a workflow-managed cell is freed by liveness and must not declare a "
             "release_boundary");
  if (cell.release_boundary == ReleaseBoundary::kSession && cell.scope != StateScope::kSession)
    d.report("V-LIFE", path + ".release_boundary", "a session release boundary needs `scope: session`");
  if (managed && (ctx.flow.emitted_values.count(name) || ctx.output(name))) {  // emitted, or an output of its name
    const StateGroup* group = cell.service_group ? ctx.group(*cell.service_group) : nullptr;
    if (!group || !group->checkpoint)
      d.report("V-LIFE", path, "runtime-managed cell '{}' is emitted as a package output, which requires a "
               "`checkpoint` adapter on its state group", name);
  }
}

}  // namespace

void check_state(RuleContext& ctx) {
  for (const auto& [name, cell] : ctx.wf.state) {
    check_state_cell(ctx, name, cell);
    check_lifecycle(ctx, name, cell);
  }
}

}  // namespace ogai::metadata::detail
