// `emit` (digest §5.5): dense publication, or per row when the output is row-wise (any emit into
// it has `when` / `valid_length`) and its contract has a request axis. Every published chunk is
// checked against the output's contract (the growth axis free for append / valid_length).
#include <fmt/format.h>

#include "base/error.h"
#include "workflow/context.h"

namespace ogai::workflow {
namespace {

struct EmitPlan {
  const metadata::EmitStep& step;
  const metadata::WorkflowOutput& output;
  std::int64_t axis;  // append / valid_length axis
  std::string what;
};

std::int64_t pick(const std::vector<std::int64_t>& v, std::int64_t row) {
  return v.size() == 1 ? v[0] : v[static_cast<std::size_t>(row)];
}

void publish(Context& ctx, const EmitPlan& plan, const std::string& key, Tensor chunk, std::int64_t row, Symbols& symbols) {
  const bool pinned = plan.step.mode == "append" || plan.step.valid_length;
  check_value(plan.output.contract, chunk, symbols, ctx.program.dynamic_symbols, plan.what, pinned ? plan.axis : -1);
  if (ctx.on_emit) ctx.on_emit(plan.step.output, row, chunk);
  auto& slot = ctx.outputs[key];
  if (plan.step.mode == "append" && slot) {
    slot = share(concat_axis(*slot, chunk, plan.axis, plan.what));
  } else if (plan.step.mode == "event") {
    const std::int64_t k = ctx.event_counts[key]++;
    ctx.outputs[key + "." + std::to_string(k)] = share(Tensor::copy_of(chunk));
    ctx.outputs[key] = share(std::move(chunk));
  } else {
    slot = share(std::move(chunk));
  }
}

Tensor trim(const Tensor& value, std::int64_t axis, std::int64_t length, const std::string& what) {
  const std::int64_t extent = value.shape()[static_cast<std::size_t>(axis)];
  if (length < 0 || length > extent)
    fail(ErrorCode::kInvalidArgument, what, "valid_length {} is outside 0..{} (the extent of axis {})", length, extent, axis);
  return slice_axis(value, axis, 0, length);
}

void emit_rows(Context& ctx, const EmitPlan& plan, const Tensor& value) {
  const std::int64_t rows = value.shape().at(0);
  std::vector<bool> guard;
  std::vector<std::int64_t> lengths;
  if (plan.step.when) guard = bool_values(*ctx.get(*plan.step.when, plan.what, "when"), plan.what + " when");
  if (plan.step.valid_length)
    lengths = int_values(*ctx.get(*plan.step.valid_length, plan.what, "valid_length"), plan.what + " valid_length");
  auto fits = [&](std::size_t n, const char* name) {
    if (n != 0 && n != 1 && static_cast<std::int64_t>(n) != rows)
      fail(ErrorCode::kInvalidArgument, plan.what, "{} has {} elements for {} rows (need 1 or {})", name, n, rows, rows);
  };
  fits(guard.size(), "when");
  fits(lengths.size(), "valid_length");
  for (std::int64_t r = 0; r < rows; ++r) {
    if (!guard.empty() && !(guard.size() == 1 ? guard[0] : guard[static_cast<std::size_t>(r)])) continue;
    Tensor chunk = slice_axis(value, 0, r, 1);
    if (!lengths.empty()) chunk = trim(chunk, plan.axis, pick(lengths, r), plan.what);
    Symbols symbols{{"batch", 1}};
    if (plan.output.contract.shape && !plan.output.contract.shape->empty() && !(*plan.output.contract.shape)[0].is_fixed())
      symbols = {{(*plan.output.contract.shape)[0].symbol, 1}};
    publish(ctx, plan, plan.step.output + ".row." + std::to_string(r), std::move(chunk), r, symbols);
  }
}

void emit_dense(Context& ctx, const EmitPlan& plan, const Value& value) {
  if (plan.step.when && !bool_values(*ctx.get(*plan.step.when, plan.what, "when"), plan.what + " when").at(0)) return;
  Tensor chunk = Tensor::copy_of(*value);
  if (plan.step.valid_length) {
    const auto lengths = int_values(*ctx.get(*plan.step.valid_length, plan.what, "valid_length"), plan.what + " valid_length");
    if (lengths.empty()) fail(ErrorCode::kInvalidArgument, plan.what, "valid_length is empty");
    chunk = trim(chunk, plan.axis, lengths[0], plan.what);
  }
  Symbols symbols = ctx.symbols;
  publish(ctx, plan, plan.step.output, std::move(chunk), -1, symbols);
}

}  // namespace

void run_emit(Context& ctx, const metadata::EmitStep& step, const std::string& path) {
  const auto* output = metadata::find_named(ctx.wf().outputs, step.output);
  if (!output) fail(ErrorCode::kInvalidPackage, path, "emits into undeclared output '{}'", step.output);
  const Value& value = ctx.get(step.value, path, "the emit");  // `what` below: one string per emit
  const std::int64_t rank = static_cast<std::int64_t>(value->shape().size());
  std::int64_t axis = step.axis.value_or(rank - 1);
  if (axis < 0) axis += rank;
  const std::string what = fmt::format("{} (emit '{}' into output '{}')", path, step.value, step.output);
  if ((step.mode == "append" || step.valid_length) && (axis < 0 || axis >= rank))
    fail(ErrorCode::kInvalidArgument, what, "axis {} is outside the rank-{} value", axis, rank);
  EmitPlan plan{step, *output, axis, what};
  const bool rows = ctx.program.row_wise.count(step.output) && output->contract.batch_layout.is_request_aligned() && rank > 0;
  if (rows) emit_rows(ctx, plan, *value);
  else emit_dense(ctx, plan, value);
}

}  // namespace ogai::workflow
