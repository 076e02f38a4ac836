// Request binding (digest §4): caller tensors first (by input name, then application alias), then
// the source: runtime roles, literal and application defaults. Literals and scalar roles are
// materialized in a second pass, at the shape the request's symbols imply.
#include <algorithm>
#include <cstdint>

#include "base/error.h"
#include "sampling/sampling_params.h"
#include "workflow/context.h"
#include "workflow/lora_request.h"

namespace ogai::workflow {
namespace {

using metadata::InputSource;
using metadata::WorkflowInput;

struct Deferred {
  std::string name;
  nlohmann::json values;
};

bool sampling(const RunRequest& r) {
  return sampling::request_samples(r.do_sample, r.temperature, r.top_k || r.top_p || r.min_p);
}

// The scalar a runtime role asks for, or null when the request cannot fill it.
nlohmann::json role_scalar(const RunRequest& r, const std::string& role) {
  const bool s = sampling(r);
  if (role == "max_iterations" || role == "max_output_tokens")
    return r.max_new_tokens ? nlohmann::json(*r.max_new_tokens) : nlohmann::json();
  if (role == "seed") return r.seed.value_or(0);
  if (role == "sampling_temperature") return s ? r.temperature.value_or(1.0) : 0.0;
  if (role == "sampling_top_k") return s ? r.top_k.value_or(0) : 1;
  if (role == "sampling_top_p") return s ? r.top_p.value_or(1.0) : 1.0;
  if (role == "sampling_min_p") return s ? r.min_p.value_or(0.0) : 0.0;
  return nullptr;
}

Tensor prompt_tensor(const WorkflowInput& input, const std::vector<TokenId>& ids, const std::string& what) {
  Shape shape{static_cast<std::int64_t>(ids.size())};
  if (input.contract.rank == 2)
    shape.insert(shape.begin(), 1);
  else if (input.contract.rank != 1)
    fail(ErrorCode::kUnsupported, what, "a prompt_tokens role of rank {} cannot be filled", input.contract.rank);
  // In the contract's dtype: int32 token ports (ORT GenAI exports) take the ids as they are,
  // int64 ones widened here.
  if (metadata::canonical_dtype(input.contract.dtype) == DataType::kInt32)
    return Tensor::copy_of(std::span<const std::int32_t>(ids), shape);
  const std::vector<std::int64_t> wide(ids.begin(), ids.end());
  return Tensor::copy_of(std::span<const std::int64_t>(wide), shape);
}

std::optional<Tensor> take_caller(Context& ctx, const std::string& name, const WorkflowInput& input) {
  auto& tensors = ctx.request.tensors;
  auto it = tensors.find(name);
  if (it == tensors.end() && input.source.kind == InputSource::Kind::kApplication) it = tensors.find(input.source.name);
  if (it == tensors.end()) return std::nullopt;
  Tensor t = std::move(it->second);
  tensors.erase(it);
  return t;
}

}  // namespace

void bind_inputs(Context& ctx) {
  add_named_adapters(ctx.program, ctx.request);  // RunRequest::adapters -> selection tensors
  const auto& wf = ctx.wf();
  std::vector<std::string> names;
  for (const auto& [name, input] : wf.inputs) names.push_back(name);
  std::sort(names.begin(), names.end());
  std::vector<Deferred> deferred;
  for (const auto& name : names) {
    const auto& input = *metadata::find_named(wf.inputs, name);
    const std::string what = "input '" + name + "'";
    std::optional<Tensor> value = take_caller(ctx, name, input);
    if (!value && input.source.kind == InputSource::Kind::kRequest) {
      if (input.role.kind == metadata::InputRole::Kind::kOpaque)
        fail(ErrorCode::kInvalidArgument, what, "is request-sourced with an opaque role; pass it as a tensor");
      if (input.role.role == "prompt_tokens" && ctx.request.prompt_tokens)
        value = prompt_tensor(input, *ctx.request.prompt_tokens, what);
      else if (auto scalar = role_scalar(ctx.request, input.role.role); !scalar.is_null())
        deferred.push_back({name, scalar});
      else if (input.role.role == "prompt_text")
        fail(ErrorCode::kUnsupported, what, "a prompt_text role needs a versioned tokenizer adapter; pass token ids");
      else if (input.default_value)
        deferred.push_back({name, *input.default_value});
    } else if (!value && input.default_value) {
      deferred.push_back({name, *input.default_value});
    }
    if (value) {
      check_value(input.contract, *value, ctx.symbols, ctx.program.dynamic_symbols, what);
      ctx.store[ctx.slot(name)] = share(std::move(*value));
    }
  }
  for (const auto& d : deferred) {
    const auto& input = *metadata::find_named(wf.inputs, d.name);
    const std::string what = "input '" + d.name + "'";
    const auto dtype = metadata::canonical_dtype(input.contract.dtype);
    if (!dtype) fail(ErrorCode::kUnsupported, what, "dtype '{}' cannot be materialized", input.contract.dtype);
    Tensor t = from_json_values(*dtype, implied_shape(input.contract, ctx.symbols), d.values, what);
    check_value(input.contract, t, ctx.symbols, ctx.program.dynamic_symbols, what);
    ctx.store[ctx.slot(d.name)] = share(std::move(t));
  }
  for (const auto& [name, input] : wf.inputs) {
    const bool present = ctx.store[ctx.slot(name)] != nullptr;
    if (input.present_as) {
      Tensor flag = Tensor::allocate(DataType::kBool, {});
      flag.span<bool>()[0] = present;
      ctx.store[ctx.slot(*input.present_as)] = share(std::move(flag));
    }
    if (present) continue;
    if (input.required) {
      std::string hint = input.source.kind == InputSource::Kind::kApplication
                             ? " (pass it as '" + input.source.name + "' or '" + name + "')"
                         : input.role.role == "max_iterations" || input.role.role == "max_output_tokens"
                             ? " (set max_new_tokens)"
                         : input.role.role.starts_with("adapter_")
                             ? " (pass it as a tensor, or name each row's adapters: ogai run --adapters, "
                               "WorkflowRequest::adapters)"
                             : " (pass it as a tensor)";
      fail(ErrorCode::kInvalidArgument, "input '" + name + "'", "is required but was not supplied{}", hint);
    }
    ctx.absent[ctx.slot(name)] = 1;
    ctx.any_absent = true;
  }
  if (!ctx.request.tensors.empty()) {
    std::string extra;
    for (const auto& [name, t] : ctx.request.tensors) extra += (extra.empty() ? "" : ", ") + name;
    fail(ErrorCode::kInvalidArgument, "request",
         "supplied undeclared inputs: {} (not a workflow input or application "
         "alias)",
         extra);
  }
}

}  // namespace ogai::workflow
