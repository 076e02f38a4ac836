// `invoke` and the pieces of `branch` (digest §§5.2, 5.4); run.cc walks `sequence` and the tree.
#include <fmt/format.h>
#include <chrono>

#include "base/error.h"
#include "workflow/context.h"
#include "workflow/adapter.h"

namespace ogai::workflow {
namespace {

using metadata::Component;
using metadata::InvokeStep;

std::string port_what(const std::string& path, const std::string& component, const char* side, const std::string& port,
                      const std::string& value) {
  return fmt::format("{} (component '{}', {} port '{}', value '{}')", path, component, side, port, value);
}

// Bound inputs by port; an absent optional workflow input leaves its port unfed.
std::vector<std::pair<std::string, Value>> gather(const Context& ctx, const InvokeStep& step, const std::string& path) {
  std::vector<std::pair<std::string, Value>> in;
  for (const auto& [port, value] : step.inputs) {
    if (ctx.is_absent(value)) continue;
    in.emplace_back(port, ctx.get(value, path, "input port", port));
  }
  return in;
}

void check_inputs(const Context& ctx, const Component& comp, const InvokeStep& step, const std::string& path,
                  const std::vector<std::pair<std::string, Value>>& in, Symbols& local) {
  for (const auto& entry : in) {
    const std::string& port = entry.first;  // not a structured binding: lambdas capture it (clang 14)
    if (const auto* c = metadata::find_named(comp.ports.inputs, port))
      check_value(*c, *entry.second, local, {}, WhatFn([&] {
        return port_what(path, step.component, "input", port, *metadata::find_named(step.inputs, port));
      }));
  }
}

void store_output(Context& ctx, const Component& comp, const InvokeStep& step, const std::string& path,
                  const std::string& port, Tensor tensor, Symbols& local) {
  const std::string& value = *metadata::find_named(step.outputs, port);
  if (const auto* c = metadata::find_named(comp.ports.outputs, port))
    check_value(*c, tensor, local, {}, WhatFn([&] { return port_what(path, step.component, "output", port, value); }));
  ctx.store[ctx.slot(value)] = share(std::move(tensor));
}

// A termination predicate's EOS verdict per row, from the inputs of the trip that just ran.
void note_eos(Context& ctx, const InvokePlan& plan) {
  const TerminationPorts& t = *plan.termination;
  auto input = [&](std::optional<std::size_t> i) -> const Tensor* {
    if (!i) return nullptr;
    const Slot slot = plan.in_slots[*i];
    if (ctx.any_absent && ctx.absent[slot]) return nullptr;
    return ctx.store[slot].get();
  };
  note_termination({input(t.tokens), input(t.eos_ids), input(t.eos_lengths), input(t.active)}, ctx.stats.eos_rows);
}

void invoke_onnx(Context& ctx, const InvokeStep& step, const InvokePlan& plan, const std::string& path) {
  if (plan.scatter_check) check_scatter_writes(ctx, step, path);
  const std::size_t n = plan.in_ports.size();
  auto& feeds = ctx.feeds;
  feeds.clear();
  bool partial = false;  // an absent optional input leaves its port unfed: feed ctx.fed_ports
  Symbols local;
  for (std::size_t i = 0; i < n; ++i) {
    const Slot slot = plan.in_slots[i];
    if (ctx.any_absent && ctx.absent[slot]) {
      if (!partial) ctx.fed_ports.assign(plan.in_ports.begin(), plan.in_ports.begin() + static_cast<std::ptrdiff_t>(i));
      partial = true;
      continue;
    }
    const Value& v = ctx.get(slot, path, "input port", plan.in_ports[i]);
    if (const auto& c = plan.in_checks[i])
      check_value(*c, *v, local, WhatFn([&] {
        return port_what(path, step.component, "input", plan.in_ports[i], ctx.program.slots.name(slot));
      }));
    feeds.push_back(v.get());
    if (partial) ctx.fed_ports.push_back(plan.in_ports[i]);
  }
  auto& results = ctx.results;
  results.clear();
  results.resize(plan.out_ports.size());
  const auto t0 = std::chrono::steady_clock::now();
  try {
    plan.session->run_into(
        partial ? std::span<const std::string>(ctx.fed_ports) : std::span<const std::string>(plan.in_ports), feeds,
        plan.out_ports, results);
  } catch (const Error& e) {
    fail(e.code(), path, "invoke of component '{}' failed: {}", step.component, e.what());
  }
  ctx.stats.ort_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Slot slot = plan.out_slots[i];
    if (const auto& c = plan.out_checks[i])
      check_value(*c, results[i], local, WhatFn([&] {
        return port_what(path, step.component, "output", plan.out_ports[i], ctx.program.slots.name(slot));
      }));
    ctx.store[slot] = share(std::move(results[i]));
  }
  if (plan.termination) note_eos(ctx, plan);
}

void invoke_binding(Context& ctx, const InvokeStep& step, const InvokePlan& plan, const std::string& path) {
  for (std::size_t o = 0; o < plan.out_ports.size(); ++o) {
    const std::string& port = plan.out_ports[o];
    std::size_t i = 0;
    while (i < plan.in_ports.size() && plan.in_ports[i] != port) ++i;
    if (i == plan.in_ports.size())
      fail(ErrorCode::kInvalidPackage, path, "binding output port '{}' has no input of the same name", port);
    ctx.store[plan.out_slots[o]] = ctx.get(plan.in_slots[i], path, "binding port", port);
  }
}

void invoke_adapter(Context& ctx, const Component& comp, const InvokeStep& step, const InvokePlan& plan,
                    const std::string& path) {
  if (!plan.adapter)
    fail(ErrorCode::kInternal, path, "adapter component '{}' was not prepared at load", step.component);
  auto in = gather(ctx, step, path);
  Symbols local;
  check_inputs(ctx, comp, step, path, in, local);
  AdapterCall call;
  for (const auto& [port, value] : in) call.inputs[adapter_role(comp, port)] = value.get();
  for (const auto& [port, value] : step.inputs) call.input_values[adapter_role(comp, port)] = value;
  for (const auto& [port, value] : step.outputs) call.output_values[adapter_role(comp, port)] = value;
  call.what = path + " (component '" + step.component + "')";
  call.value = [&ctx](const std::string& name) -> const Tensor* {
    const auto slot = ctx.program.slots.find(name);
    return slot ? ctx.store[*slot].get() : nullptr;
  };
  auto out = plan.adapter->run(call);
  for (const auto& [port, value] : step.outputs) {
    auto it = out.find(adapter_role(comp, port));
    if (it != out.end()) store_output(ctx, comp, step, path, port, std::move(it->second), local);
  }
}

std::string case_key(const Tensor& predicate, const std::string& what) {
  if (predicate.element_count() != 1)
    fail(ErrorCode::kInvalidArgument, what, "a branch predicate must hold one value, got shape {}",
         ort::shape_string(predicate.shape()));
  if (predicate.dtype() == DataType::kBool) return predicate.span<bool>()[0] ? "true" : "false";
  return std::to_string(int_values(predicate, what)[0]);
}

}  // namespace

void Context::undefined(const std::string& name, const std::string& path, std::string_view reader,
                        std::string_view detail) const {
  fail(ErrorCode::kInvalidArgument, path, "{}{}{}{} reads '{}', which {}", reader, detail.empty() ? "" : " '", detail,
       detail.empty() ? "" : "'", name, is_absent(name) ? "the request left absent" : "is not defined at this point");
}

const Value& Context::get(const std::string& name, const std::string& path, std::string_view reader,
                          std::string_view detail) const {
  const auto slot = program.slots.find(name);
  if (!slot) undefined(name, path, reader, detail);
  return get(*slot, path, reader, detail);
}

Slot Context::slot(const std::string& name) const {
  const auto slot = program.slots.find(name);
  if (!slot) fail(ErrorCode::kInternal, "workflow store", "value '{}' has no slot (the plan missed it)", name);
  return *slot;
}

bool Context::is_absent(const std::string& name) const {
  if (!any_absent) return false;
  const auto slot = program.slots.find(name);
  return slot && absent[*slot];
}

void run_invoke(Context& ctx, const InvokeStep& step, const std::string& path) {
  const InvokePlan& plan = ctx.program.invokes.at(&step);
  const Component& comp = *plan.component;
  switch (comp.implementation.kind) {
    case metadata::Implementation::Kind::kOnnx:
      return invoke_onnx(ctx, step, plan, path);
    case metadata::Implementation::Kind::kBinding:
      return invoke_binding(ctx, step, plan, path);
    case metadata::Implementation::Kind::kAdapter:
      return invoke_adapter(ctx, comp, step, plan, path);
  }
}

BranchProgress enter_branch(Context& ctx, const metadata::BranchStep& step, const std::string& path) {
  BranchProgress p;
  p.branch = &step;
  p.path = &path;
  p.key = case_key(*ctx.get(step.predicate, path, "the predicate"), path + " predicate '" + step.predicate + "'");
  for (const auto& c : step.cases)
    if (c.key == p.key) p.body = &c.body;
  p.use_default = p.body == nullptr;
  if (p.use_default && step.default_step.empty())
    fail(ErrorCode::kInvalidArgument, path, "predicate '{}' is {}, which no case matches, and there is no default",
         step.predicate, p.key);
  if (p.use_default) p.body = &step.default_step;
  p.saved = ctx.store;  // the case runs on a copy; only phis come back
  return p;
}

void leave_branch(Context& ctx, BranchProgress& p) {
  const auto& step = *p.branch;
  std::map<std::string, Value> phis;
  for (const auto& [name, phi] : step.outputs) {
    const std::string* source = p.use_default ? nullptr : metadata::find_named(phi.cases, p.key);
    if (!source && phi.default_value) source = &*phi.default_value;
    if (!source) fail(ErrorCode::kInvalidPackage, *p.path, "phi '{}' has no value for case '{}'", name, p.key);
    phis[name] = ctx.get(*source, *p.path, "phi '" + name + "'");
  }
  ctx.store = std::move(p.saved);
  for (auto& [name, value] : phis) ctx.store[ctx.slot(name)] = std::move(value);
}

}  // namespace ogai::workflow
