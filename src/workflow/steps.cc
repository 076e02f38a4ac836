// `invoke` and the pieces of `branch` (digest §§5.2, 5.4); run.cc walks `sequence` and the tree.
#include <chrono>
#include <fmt/format.h>

#include "base/error.h"
#include "workflow/context.h"
#include "workflow/grammar_adapter.h"

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
    if (ctx.absent.count(value)) continue;
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
  ctx.store[value] = share(std::move(tensor));
}

void invoke_onnx(Context& ctx, const InvokeStep& step, const std::string& path) {
  check_scatter_writes(ctx, step, path);
  const InvokePlan& plan = ctx.program.invokes.at(&step);
  const std::size_t n = plan.in_ports.size();
  std::vector<const Tensor*> feeds;
  feeds.reserve(n);
  std::vector<std::string> fed_ports;  // only when an absent optional input leaves a port unfed
  bool partial = false;
  Symbols local;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& value = *plan.in_values[i];
    if (!ctx.absent.empty() && ctx.absent.count(value)) {
      if (!partial) fed_ports.assign(plan.in_ports.begin(), plan.in_ports.begin() + static_cast<std::ptrdiff_t>(i));
      partial = true;
      continue;
    }
    const Value& v = ctx.get(value, path, "input port", plan.in_ports[i]);
    if (const auto* c = plan.in_contracts[i])
      check_value(*c, *v, local, {}, WhatFn([&] { return port_what(path, step.component, "input", plan.in_ports[i], value); }));
    feeds.push_back(v.get());
    if (partial) fed_ports.push_back(plan.in_ports[i]);
  }
  const bool all_fed = !partial;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> results;
  try {
    results = plan.session->run(all_fed ? std::span<const std::string>(plan.in_ports) : std::span<const std::string>(fed_ports),
                                 feeds, plan.out_ports);
  } catch (const Error& e) {
    fail(e.code(), path, "invoke of component '{}' failed: {}", step.component, e.what());
  }
  ctx.stats.ort_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string& value = *plan.out_values[i];
    if (const auto* c = plan.out_contracts[i])
      check_value(*c, results[i], local, {},
                  WhatFn([&] { return port_what(path, step.component, "output", plan.out_ports[i], value); }));
    ctx.store[value] = share(std::move(results[i]));
  }
}

void invoke_binding(Context& ctx, const InvokeStep& step, const std::string& path) {
  for (const auto& [port, value] : step.outputs) {
    const std::string* source = metadata::find_named(step.inputs, port);
    if (!source) fail(ErrorCode::kInvalidPackage, path, "binding output port '{}' has no input of the same name", port);
    ctx.store[value] = ctx.get(*source, path, "binding port '" + port + "'");
  }
}

void invoke_adapter(Context& ctx, const Component& comp, const InvokeStep& step, const std::string& path) {
  const std::string comp_path = "pipeline.workflow.components." + step.component;
  const auto action = grammar_action(comp, comp_path);
  auto in = gather(ctx, step, path);
  Symbols local;
  check_inputs(ctx, comp, step, path, in, local);
  std::map<std::string, const Tensor*> by_role;
  for (const auto& [role_name, port] : comp.contract->bindings)
    for (const auto& [p, value] : in)
      if (p == port) by_role[role_name] = value.get();
  auto out = run_grammar(action, by_role, path + " (component '" + step.component + "')");
  for (const auto& [role_name, port] : comp.contract->bindings) {
    auto it = out.find(role_name);
    if (it == out.end() || !metadata::find_named(step.outputs, port)) continue;
    store_output(ctx, comp, step, path, port, std::move(it->second), local);
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

const Value& Context::get(const std::string& name, const std::string& path, std::string_view reader,
                          std::string_view detail) const {
  auto it = store.find(name);
  if (it == store.end())
    fail(ErrorCode::kInvalidArgument, path, "{}{}{}{} reads '{}', which {}", reader, detail.empty() ? "" : " '", detail,
         detail.empty() ? "" : "'", name,
         absent.count(name) ? "the request left absent" : "is not defined at this point");
  return it->second;
}

void run_invoke(Context& ctx, const InvokeStep& step, const std::string& path) {
  const Component& comp = *metadata::find_named(ctx.wf().components, step.component);
  switch (comp.implementation.kind) {
    case metadata::Implementation::Kind::kOnnx: return invoke_onnx(ctx, step, path);
    case metadata::Implementation::Kind::kBinding: return invoke_binding(ctx, step, path);
    case metadata::Implementation::Kind::kAdapter: return invoke_adapter(ctx, comp, step, path);
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
  for (auto& [name, value] : phis) ctx.store[name] = std::move(value);
}

}  // namespace ogai::workflow
