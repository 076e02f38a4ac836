// `sequence`, `invoke` and `branch` (digest §§5.1, 5.2, 5.4).
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

void invoke_onnx(Context& ctx, const Component& comp, const InvokeStep& step, const std::string& path) {
  check_scatter_writes(ctx, step, path);
  auto in = gather(ctx, step, path);
  Symbols local;
  check_inputs(ctx, comp, step, path, in, local);
  std::vector<std::string> names, outs;
  std::vector<const Tensor*> feeds;
  for (const auto& [port, value] : in) {
    names.push_back(port);
    feeds.push_back(value.get());
  }
  for (const auto& [port, value] : step.outputs) outs.push_back(port);
  const auto& session = ctx.program.sessions.at(step.component);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Tensor> results;
  try {
    results = session.run(names, feeds, outs);
  } catch (const Error& e) {
    fail(e.code(), path, "invoke of component '{}' failed: {}", step.component, e.what());
  }
  ctx.stats.ort_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t i = 0; i < outs.size(); ++i) store_output(ctx, comp, step, path, outs[i], std::move(results[i]), local);
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

void run_branch(Context& ctx, const metadata::BranchStep& step, const std::string& path) {
  const std::string key = case_key(*ctx.get(step.predicate, path, "the predicate"), path + " predicate '" + step.predicate + "'");
  const std::vector<metadata::Step>* body = nullptr;
  for (const auto& c : step.cases)
    if (c.key == key) body = &c.body;
  const bool use_default = body == nullptr;
  if (use_default && step.default_step.empty())
    fail(ErrorCode::kInvalidArgument, path, "predicate '{}' is {}, which no case matches, and there is no default",
         step.predicate, key);
  if (use_default) body = &step.default_step;
  auto saved = ctx.store;  // the case runs on a copy; only phis come back
  run_steps(ctx, *body);
  std::map<std::string, Value> phis;
  for (const auto& [name, phi] : step.outputs) {
    const std::string* source = use_default ? nullptr : metadata::find_named(phi.cases, key);
    if (!source && phi.default_value) source = &*phi.default_value;
    if (!source) fail(ErrorCode::kInvalidPackage, path, "phi '{}' has no value for case '{}'", name, key);
    phis[name] = ctx.get(*source, path, "phi '" + name + "'");
  }
  ctx.store = std::move(saved);
  for (auto& [name, value] : phis) ctx.store[name] = std::move(value);
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
    case metadata::Implementation::Kind::kOnnx: return invoke_onnx(ctx, comp, step, path);
    case metadata::Implementation::Kind::kBinding: return invoke_binding(ctx, step, path);
    case metadata::Implementation::Kind::kAdapter: return invoke_adapter(ctx, comp, step, path);
  }
}

void run_step(Context& ctx, const metadata::Step& step) {
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, metadata::SequenceStep>) run_steps(ctx, body.steps);
        else if constexpr (std::is_same_v<T, InvokeStep>) run_invoke(ctx, body, step.path);
        else if constexpr (std::is_same_v<T, metadata::LoopStep>) run_loop(ctx, body, step.path);
        else if constexpr (std::is_same_v<T, metadata::BranchStep>) run_branch(ctx, body, step.path);
        else run_emit(ctx, body, step.path);
      },
      step.body);
}

void run_steps(Context& ctx, const std::vector<metadata::Step>& steps) {
  for (const auto& step : steps) run_step(ctx, step);
}

}  // namespace ogai::workflow
