// `loop` (digest §5.3): setup once per entry, carries started from `initial` or the cell's
// initializer, a pre-test activity read of `continue_when` before every trip, the iteration value,
// the body, then the carry update with the recurrence check and the inactive-row merge.
#include <fmt/format.h>
#include <algorithm>

#include "base/error.h"
#include "workflow/context.h"

namespace ogai::workflow {
namespace {

using metadata::Carry;
using metadata::Recurrence;
using metadata::StateCell;

const StateCell& cell_of(const CarryPlan& c, const std::string& path) {
  if (!c.cell) fail(ErrorCode::kInvalidPackage, path, "carries undeclared state cell '{}'", c.carry->cell);
  return *c.cell;
}

void start_carries(Context& ctx, const LoopPlan& plan, const std::string& path) {
  for (const auto& c : plan.carries) {
    const auto& cell = cell_of(c, path);
    const auto& carry = *c.carry;
    const std::string& from = carry.initial ? *carry.initial : cell.initializer;
    Value v = ctx.get(c.initial_slot, path, "carried cell", carry.cell);
    check_value(*c.check, *v, ctx.symbols, WhatFn([&] {
      return fmt::format("{} carried cell '{}' (initial value '{}')", path, carry.cell, from);
    }));
    ctx.store[c.cell_slot] = std::move(v);
  }
}

// One flag per element into `flags`; none means "stop".
void activity(const Context& ctx, const LoopProgress& p, std::vector<bool>& flags) {
  const metadata::LoopStep& loop = *p.loop;
  const std::string& path = *p.path;
  const Value& v = ctx.get(p.plan->continue_when, path, "continue_when");
  auto what = [&] { return path + " continue_when '" + loop.continue_when + "'"; };
  if (v->dtype() != DataType::kBool || v->shape().size() > 1 || v->element_count() == 0)
    fail(ErrorCode::kInvalidArgument, what(), "must be a non-empty bool of rank 0 or 1, got {}{}",
         dtype_name(v->dtype()), ort::shape_string(v->shape()));
  if (loop.generation_eos && !ctx.request.stop_on_eos) {
    flags.assign(static_cast<std::size_t>(v->element_count()), true);
    return;
  }
  const auto values = v->span<bool>();
  flags.assign(values.begin(), values.end());
}

// A growing or bounded cell past its max fails the run (digest §5.3.1: "both extents are <= max";
// the reference interpreter stops with an error there too, it neither clamps nor ends the loop
// early): the error says at which trip of how many, so the caller can ask for fewer iterations.
template <class What>
void check_recurrence(const Context& ctx, const LoopProgress& p, const StateCell& cell, const Carry& carry,
                      const Tensor& old, const Tensor& next, const What& lazy_what) {
  const bool invariant_ok = old.dtype() == next.dtype() && old.shape() == next.shape() &&
                            cell.recurrence.kind == Recurrence::Kind::kInvariant;
  if (invariant_ok) return;  // the common case: nothing to format or check
  const std::string what = lazy_what();
  if (old.dtype() != next.dtype() || old.shape().size() != next.shape().size())
    fail(ErrorCode::kInvalidArgument, what, "changes {}{} into {}{}; a carry keeps its dtype and rank",
         dtype_name(old.dtype()), ort::shape_string(old.shape()), dtype_name(next.dtype()),
         ort::shape_string(next.shape()));
  const auto& r = cell.recurrence;
  for (std::size_t i = 0; i < old.shape().size(); ++i) {
    const bool growth_axis = r.kind != Recurrence::Kind::kInvariant && static_cast<std::int64_t>(i) == r.axis;
    if (!growth_axis && old.shape()[i] != next.shape()[i])
      fail(ErrorCode::kInvalidArgument, what, "changes shape {} into {}; only {} may change",
           ort::shape_string(old.shape()), ort::shape_string(next.shape()),
           r.kind == Recurrence::Kind::kInvariant ? std::string("nothing (invariant)")
                                                  : "axis " + std::to_string(r.axis));
  }
  if (r.kind == Recurrence::Kind::kInvariant) return;
  const auto axis = static_cast<std::size_t>(r.axis);
  const auto max_v = ctx.get(r.max, what, "the recurrence max");
  const auto maxes = int_values(*max_v, what + " max '" + r.max + "'");
  const std::int64_t max = *std::max_element(maxes.begin(), maxes.end());
  if (next.shape()[axis] > max || old.shape()[axis] > max)
    fail(ErrorCode::kInvalidArgument, what,
         "grows to {} along axis {}, over its max {} ('{}'), in trip {} of the loop's {} (max_iterations '{}'); "
         "a run may not take its state past the package's capacity: ask for fewer iterations (max_tokens, "
         "--max-new-tokens){}",
         next.shape()[axis], r.axis, max, r.max, p.index + 1, p.limit, p.loop->max_iterations,
         p.index > 0 ? fmt::format(": this run's first {} trips fit", p.index) : std::string());
  if (r.kind == Recurrence::Kind::kGrowing && maxes.size() == 1) {
    const auto inc = ctx.get(r.increment, what, "the recurrence increment");
    const auto incs = int_values(*inc, what + " increment '" + r.increment + "'");
    if (incs.size() == 1 && next.shape()[axis] != old.shape()[axis] + incs[0])
      fail(ErrorCode::kInvalidArgument, what, "grows from {} to {} along axis {}, but its increment is {}",
           old.shape()[axis], next.shape()[axis], r.axis, incs[0]);
  }
  (void)carry;
}

template <class What>
Value merged(const Context& ctx, const StateCell& cell, const Carry& carry, const Value& old, Value next,
             const std::vector<bool>& flags, const What& lazy_what) {
  if (flags.size() <= 1 || cell.service_group) return next;
  if (std::all_of(flags.begin(), flags.end(), [](bool f) { return f; })) return next;
  const std::string what = lazy_what();
  const auto& layout = cell.contract.batch_layout;
  if (!layout.is_request_aligned())
    fail(ErrorCode::kInvalidArgument, what, "has no request axis, so its inactive rows cannot be kept");
  const std::int64_t rows = next->shape().at(static_cast<std::size_t>(layout.axis));
  if (static_cast<std::int64_t>(flags.size()) != rows)
    fail(ErrorCode::kInvalidArgument, what, "has {} rows but continue_when has {} flags", rows, flags.size());
  std::vector<bool> keep(flags.size());
  for (std::size_t i = 0; i < flags.size(); ++i) keep[i] = !flags[i];
  (void)ctx;
  (void)carry;
  return share(restore_rows(*old, *next, layout.axis, keep));
}

void update_carries(Context& ctx, LoopProgress& p) {
  const std::string& path = *p.path;
  auto& updates = p.updates;
  updates.clear();
  for (const auto& c : p.plan->carries) {
    const auto& cell = cell_of(c, path);
    const auto& carry = *c.carry;
    auto what = [&] { return fmt::format("{} carried cell '{}' (next '{}')", path, carry.cell, carry.next); };
    const Value& next = ctx.store[c.next_slot];
    if (!next) {
      if (cell.service_group) continue;  // a service cell whose next is missing keeps its value
      fail(ErrorCode::kInvalidArgument, what(), "the body did not define its next value");
    }
    const Value& old = ctx.store[c.cell_slot];
    check_recurrence(ctx, p, cell, carry, *old, *next, what);
    updates.emplace_back(c.cell_slot, merged(ctx, cell, carry, old, next, p.flags, what));
  }
  for (auto& [slot, value] : updates) ctx.store[slot] = std::move(value);
}

void store_iteration(Context& ctx, const LoopProgress& p) {
  if (!p.plan->iteration) return;
  ctx.store[*p.plan->iteration] = share(filled_int64(implied_shape(p.loop->iteration->contract, ctx.symbols), p.index));
}

}  // namespace

void start_loop(Context& ctx, LoopProgress& p) {
  const auto& loop = *p.loop;
  const std::string& path = *p.path;
  p.plan = &ctx.program.loops.at(&loop);
  start_carries(ctx, *p.plan, path);
  p.limit = single_int(*ctx.get(p.plan->max_iterations, path, "max_iterations"),
                       path + " max_iterations '" + loop.max_iterations + "'");
  if (p.limit < 0)
    fail(ErrorCode::kInvalidArgument, path + " max_iterations '" + loop.max_iterations + "'",
         "is {}; a loop needs a non-negative iteration limit", p.limit);
  p.index = 0;
}

bool begin_trip(Context& ctx, LoopProgress& p) {
  if (p.index < p.limit) {
    activity(ctx, p, p.flags);
    if (std::any_of(p.flags.begin(), p.flags.end(), [](bool f) { return f; })) {
      store_iteration(ctx, p);
      return true;
    }
  }
  if (p.plan->iteration) ctx.store[*p.plan->iteration] = nullptr;
  return false;
}

void end_trip(Context& ctx, LoopProgress& p) {
  update_carries(ctx, p);
  ++ctx.stats.iterations;
  ++p.index;
}

}  // namespace ogai::workflow
