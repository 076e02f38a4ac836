// The indexed_scatter capacity check (digest §6.3), run before every invoke of a component that
// a fixed-capacity group feeds destinations, setup and body alike.
#include "base/error.h"
#include "workflow/context.h"

namespace ogai::workflow {
namespace {

void check_group(const Context& ctx, const std::string& group_name, const metadata::StateGroup& group,
                 const metadata::InvokeStep& step, const std::string& path) {
  const auto& update = *group.update;
  const std::string* port = metadata::find_named(update.write_indices_ports, step.component);
  if (!port) return;
  const std::string* dest_value = metadata::find_named(step.inputs, *port);
  if (!dest_value) return;
  const std::string what = path + " (state service group '" + group_name + "')";
  const std::int64_t capacity =
      single_int(*ctx.get(update.capacity, what, "the capacity check"), what + " capacity '" + update.capacity + "'");
  if (capacity <= 0)
    fail(ErrorCode::kInvalidArgument, what, "capacity '{}' is {}; it must be positive", update.capacity, capacity);
  if (const auto* aliases = metadata::find_named(group.ports, step.component)) {
    const auto axis = static_cast<std::size_t>(group.sequence_axis.value_or(1));
    for (const auto& [cell, alias] : *aliases) {
      const std::string* bound = metadata::find_named(step.inputs, alias.input);
      if (!bound) continue;
      const auto& t = *ctx.get(*bound, what, "cache port '" + alias.input + "'");
      if (axis >= t.shape().size() || t.shape()[axis] != capacity)
        fail(ErrorCode::kInvalidArgument, what, "cache '{}' ({}) must hold exactly {} entries along axis {}", *bound,
             ort::shape_string(t.shape()), capacity, axis);
    }
  }
  const auto dests = int_values(*ctx.get(*dest_value, what, "write_indices port '" + *port + "'"), what);
  for (std::size_t r = 0; r < dests.size(); ++r)
    if (dests[r] < 0 || dests[r] >= capacity)
      fail(ErrorCode::kInvalidArgument, what,
           "state service group '{}' would write row {} to position {}, outside its "
           "capacity of {} (value '{}')",
           group_name, r, dests[r], capacity, *dest_value);
  if (!group.logical_lengths) return;
  const Value& logical = ctx.store[ctx.slot(*group.logical_lengths)];
  if (!logical) return;
  const auto lengths = int_values(*logical, what);
  if (lengths.size() != dests.size())
    fail(ErrorCode::kInvalidArgument, what, "{} logical lengths ('{}') for {} destinations", lengths.size(),
         *group.logical_lengths, dests.size());
  for (std::size_t r = 0; r < lengths.size(); ++r)
    if (lengths[r] < 0 || lengths[r] > capacity)
      fail(ErrorCode::kInvalidArgument, what, "row {} has logical length {}, outside its capacity of {}", r, lengths[r],
           capacity);
}

}  // namespace

void check_scatter_writes(const Context& ctx, const metadata::InvokeStep& step, const std::string& path) {
  const auto& serving = ctx.wf().serving;
  if (!serving) return;
  for (const auto& [name, group] : serving->groups)
    if (group.update && group.update->kind == metadata::StateUpdate::Kind::kIndexedScatter)
      check_group(ctx, name, group, step, path);
}

}  // namespace ogai::workflow
