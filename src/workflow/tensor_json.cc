#include "workflow/tensor_json.h"

#include "base/error.h"
#include "workflow/tensor_ops.h"
#include "workflow/value_check.h"

namespace ogai::workflow {
namespace {

void infer_shape(const nlohmann::json& v, std::size_t depth, ort::Shape& shape, const std::string& what) {
  if (!v.is_array()) {
    if (depth != shape.size()) fail(ErrorCode::kInvalidArgument, what, "the nested array is not rectangular");
    return;
  }
  const auto n = static_cast<std::int64_t>(v.size());
  if (depth == shape.size()) shape.push_back(n);
  else if (shape[depth] != n) fail(ErrorCode::kInvalidArgument, what, "the nested array is not rectangular");
  for (const auto& e : v) infer_shape(e, depth + 1, shape, what);
  if (v.empty() && depth + 1 < shape.size()) fail(ErrorCode::kInvalidArgument, what, "the nested array is not rectangular");
}

}  // namespace

const metadata::WorkflowInput* find_input(const metadata::Workflow& wf, const std::string& name) {
  if (const auto* in = metadata::find_named(wf.inputs, name)) return in;
  for (const auto& [n, input] : wf.inputs)
    if (input.source.kind == metadata::InputSource::Kind::kApplication && input.source.name == name) return &input;
  return nullptr;
}

ort::Tensor tensor_from_json(const nlohmann::json& value, const metadata::TensorContract& contract, const std::string& what) {
  const auto dtype = metadata::canonical_dtype(contract.dtype);
  if (!dtype) fail(ErrorCode::kUnsupported, what, "dtype '{}' cannot be written from JSON", contract.dtype);
  ort::Shape shape;
  if (value.is_array()) {
    infer_shape(value, 0, shape, what);
    // An empty innermost list with a deeper contract: nothing more to infer.
  } else {
    shape = implied_shape(contract, {});
  }
  return from_json_values(*dtype, shape, value, what);
}

nlohmann::json tensor_json(const ort::Tensor& tensor) {
  return {{"dtype", std::string(dtype_name(tensor.dtype()))}, {"shape", tensor.shape()}, {"data", values_json(tensor)}};
}

nlohmann::json outputs_json(const RunResult& result) {
  nlohmann::json outputs = nlohmann::json::object();
  for (const auto& [key, tensor] : result.outputs) outputs[key] = tensor_json(tensor);
  return {{"outputs", outputs}};
}

}  // namespace ogai::workflow
