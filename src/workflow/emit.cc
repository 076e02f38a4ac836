// `emit` (digest §5.5): dense publication, or per row when the output is row-wise (any emit into
// it has `when` / `valid_length`) and its contract has a request axis. Every published chunk is
// checked against the output's contract (the growth axis free for append / valid_length).
// A chunk that is the whole value is published without a copy (values are immutable); a row or
// a trimmed prefix that is contiguous is a view; appends along a contiguous axis are buffered.
#include <fmt/format.h>
#include <cstring>

#include "base/error.h"
#include "workflow/context.h"

namespace ogai::workflow {
namespace {

using Mode = EmitPlan::Mode;

struct Emission {
  const metadata::EmitStep& step;
  const EmitPlan& plan;
  const std::string& path;
  std::int64_t axis;  // append / valid_length axis
  std::string what() const { return fmt::format("{} (emit '{}' into output '{}')", path, step.value, step.output); }
};

// A chunk to publish: a view or copy in `own`, or the emitted value itself in `whole`.
struct Chunk {
  const Value* whole = nullptr;
  Tensor own;
  const Tensor& tensor() const { return whole ? **whole : own; }
};

std::int64_t pick(const std::vector<std::int64_t>& v, std::int64_t row) {
  return v.size() == 1 ? v[0] : v[static_cast<std::size_t>(row)];
}

// The product of the extents before `axis`: 1 when a prefix along it is contiguous.
std::int64_t outer(const Shape& shape, std::int64_t axis) {
  std::int64_t n = 1;
  for (std::int64_t i = 0; i < axis && i < static_cast<std::int64_t>(shape.size()); ++i) n *= shape[i];
  return n;
}

// [begin, begin + length) along `axis` of `t`: a view when contiguous (valid while `t` lives).
Tensor part(const Tensor& t, std::int64_t axis, std::int64_t begin, std::int64_t length) {
  if (outer(t.shape(), axis) != 1 || dtype_size(t.dtype()) == 0) return slice_axis(t, axis, begin, length);
  Shape shape = t.shape();
  const std::size_t inner = t.byte_size() / static_cast<std::size_t>(std::max<std::int64_t>(1, shape[axis]));
  shape[static_cast<std::size_t>(axis)] = length;
  auto* base = static_cast<std::byte*>(const_cast<void*>(t.raw_data())) + inner * static_cast<std::size_t>(begin);
  return Tensor::view(t.dtype(), std::move(shape), base);
}

Value owned(Chunk& chunk) { return chunk.whole ? *chunk.whole : share(Tensor::copy_of(chunk.own)); }

bool appendable(const Published& slot, const Tensor& chunk, std::int64_t axis) {
  if (slot.dtype != chunk.dtype() || slot.shape.size() != chunk.shape().size()) return false;
  for (std::size_t i = 0; i < slot.shape.size(); ++i)
    if (static_cast<std::int64_t>(i) != axis && slot.shape[i] != chunk.shape()[i]) return false;
  return outer(chunk.shape(), axis) == 1;
}

Tensor materialize(const Published& slot) {
  Tensor t = Tensor::allocate(slot.dtype, slot.shape);
  if (!slot.bytes.empty()) std::memcpy(t.raw_data(), slot.bytes.data(), slot.bytes.size());
  return t;
}

void append(Published& slot, Chunk& chunk, const Emission& e) {
  const Tensor& t = chunk.tensor();
  const auto* bytes = static_cast<const std::byte*>(t.raw_data());
  if (!slot.buffered && !slot.value && outer(t.shape(), e.axis) == 1 && dtype_size(t.dtype()) != 0) {
    slot.buffered = true;
    slot.dtype = t.dtype();
    slot.shape = t.shape();
    slot.bytes.assign(bytes, bytes + t.byte_size());
  } else if (slot.buffered && appendable(slot, t, e.axis)) {
    slot.bytes.insert(slot.bytes.end(), bytes, bytes + t.byte_size());
    slot.shape[static_cast<std::size_t>(e.axis)] += t.shape()[static_cast<std::size_t>(e.axis)];
  } else {
    if (slot.buffered) slot.value = share(materialize(slot)), slot.buffered = false, slot.bytes.clear();
    slot.value = slot.value ? share(concat_axis(*slot.value, t, e.axis, e.what())) : owned(chunk);
  }
}

void publish(Context& ctx, const Emission& e, const std::string& key, Chunk chunk, std::int64_t row, Symbols& symbols) {
  const bool pinned = e.plan.mode == Mode::kAppend || e.step.valid_length;
  const Tensor& t = chunk.tensor();
  check_value(*e.plan.check, t, symbols, WhatFn([&] { return e.what(); }), pinned ? e.axis : -1);
  if (ctx.on_emit) ctx.on_emit(e.step.output, row, t);
  auto& slot = ctx.outputs[key];
  if (e.plan.mode == Mode::kAppend) return append(slot, chunk, e);
  if (e.plan.mode == Mode::kEvent) {
    const std::int64_t k = ctx.event_counts[key]++;
    ctx.outputs[key + "." + std::to_string(k)].value = share(Tensor::copy_of(t));
  }
  slot = Published{};
  slot.value = owned(chunk);
}

// The chunk of `value` up to `length` along the axis (the whole value when nothing is cut).
Chunk trim(Chunk chunk, const Emission& e, std::int64_t length) {
  const Tensor& t = chunk.tensor();
  const std::int64_t extent = t.shape()[static_cast<std::size_t>(e.axis)];
  if (length < 0 || length > extent)
    fail(ErrorCode::kInvalidArgument, e.what(), "valid_length {} is outside 0..{} (the extent of axis {})", length,
         extent, e.axis);
  if (length == extent) return chunk;
  return Chunk{nullptr, part(t, e.axis, 0, length)};
}

// The value in `slot`, the emit's `what` formatted only when it is not defined.
const Tensor& read(const Context& ctx, Slot slot, const Emission& e, const char* reader) {
  const Value& v = ctx.store[slot];
  return v ? *v : *ctx.get(slot, e.what(), reader);
}

void emit_rows(Context& ctx, const Emission& e, const Value& value) {
  const std::int64_t rows = value->shape().at(0);
  auto& guard = ctx.emit_when;
  auto& lengths = ctx.emit_lengths;
  guard.clear(), lengths.clear();
  if (e.plan.when)
    int_values_into(read(ctx, *e.plan.when, e, "when"), guard, WhatFn([&] { return e.what() + " when"; }));
  if (e.plan.valid_length)
    int_values_into(read(ctx, *e.plan.valid_length, e, "valid_length"), lengths,
                    WhatFn([&] { return e.what() + " valid_length"; }));
  auto fits = [&](std::size_t n, const char* name) {
    if (n != 0 && n != 1 && static_cast<std::int64_t>(n) != rows)
      fail(ErrorCode::kInvalidArgument, e.what(), "{} has {} elements for {} rows (need 1 or {})", name, n, rows, rows);
  };
  fits(guard.size(), "when");
  fits(lengths.size(), "valid_length");
  const auto& shape = e.plan.output->contract.shape;
  const bool symbolic_rows = shape && !shape->empty() && !(*shape)[0].is_fixed();
  for (std::int64_t r = 0; r < rows; ++r) {
    if (!guard.empty() && pick(guard, r) == 0) continue;
    Chunk chunk = rows == 1 ? Chunk{&value, {}} : Chunk{nullptr, part(*value, 0, r, 1)};
    if (!lengths.empty()) chunk = trim(std::move(chunk), e, pick(lengths, r));
    Symbols symbols{{symbolic_rows ? std::string_view((*shape)[0].symbol) : std::string_view("batch"), 1}};
    publish(ctx, e, e.step.output + ".row." + std::to_string(r), std::move(chunk), r, symbols);
  }
}

void emit_dense(Context& ctx, const Emission& e, const Value& value) {
  if (e.plan.when && !bool_values(read(ctx, *e.plan.when, e, "when"), e.what() + " when").at(0)) return;
  Chunk chunk{&value, {}};
  if (e.plan.valid_length) {
    const auto lengths = int_values(read(ctx, *e.plan.valid_length, e, "valid_length"), e.what() + " valid_length");
    if (lengths.empty()) fail(ErrorCode::kInvalidArgument, e.what(), "valid_length is empty");
    chunk = trim(std::move(chunk), e, lengths[0]);
  }
  Symbols symbols = ctx.symbols;
  publish(ctx, e, e.step.output, std::move(chunk), -1, symbols);
}

}  // namespace

void run_emit(Context& ctx, const metadata::EmitStep& step, const std::string& path) {
  const EmitPlan& plan = ctx.program.emits.at(&step);
  if (!plan.output) fail(ErrorCode::kInvalidPackage, path, "emits into undeclared output '{}'", step.output);
  const Value& value = ctx.get(plan.value, path, "the emit");
  const std::int64_t rank = static_cast<std::int64_t>(value->shape().size());
  std::int64_t axis = step.axis.value_or(rank - 1);
  if (axis < 0) axis += rank;
  const Emission e{step, plan, path, axis};
  if ((plan.mode == Mode::kAppend || step.valid_length) && (axis < 0 || axis >= rank))
    fail(ErrorCode::kInvalidArgument, e.what(), "axis {} is outside the rank-{} value", axis, rank);
  if (plan.row_wise && rank > 0)
    emit_rows(ctx, e, value);
  else
    emit_dense(ctx, e, value);
}

std::map<std::string, Tensor> published_outputs(const Context& ctx) {
  std::map<std::string, Tensor> out;
  for (const auto& [key, slot] : ctx.outputs)
    out.emplace(key, slot.buffered ? materialize(slot) : Tensor::copy_of(*slot.value));
  return out;
}

}  // namespace ogai::workflow
