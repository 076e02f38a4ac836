// ogai::Workflow (include/ogai/workflow.h) over the interpreter: TensorValue <-> ort::Tensor copies
// at the boundary, nothing else.
#include "ogai/workflow.h"

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "metadata/contract.h"
#include "workflow/input_specs.h"
#include "workflow/interpreter.h"
#include "workflow/media_output.h"
#include "workflow/lora_cache.h"
#include "workflow/transcription.h"

namespace ogai {
namespace {

ort::Tensor to_tensor(const std::string& name, const TensorValue& v) {
  const auto dtype = metadata::canonical_dtype(v.dtype);
  if (!dtype) fail(ErrorCode::kInvalidArgument, "input '" + name + "'", "unknown dtype '{}'", v.dtype);
  ort::Tensor t = ort::Tensor::allocate(*dtype, v.shape);
  if (t.byte_size() != v.data.size())
    fail(ErrorCode::kInvalidArgument, "input '" + name + "'", "{} bytes for {}{}", v.data.size(), v.dtype,
         ort::shape_string(v.shape));
  if (!v.data.empty()) std::memcpy(t.raw_data(), v.data.data(), v.data.size());
  return t;
}

TensorValue to_value(const ort::Tensor& t) {
  TensorValue v{std::string(dtype_name(t.dtype())), t.shape(), std::vector<std::byte>(t.byte_size())};
  if (!v.data.empty()) std::memcpy(v.data.data(), t.raw_data(), v.data.size());
  return v;
}

template <class T>
TensorValue make(const char* dtype, const std::vector<T>& values, std::vector<std::int64_t> shape) {
  TensorValue v{dtype, std::move(shape), std::vector<std::byte>(values.size() * sizeof(T))};
  if (!values.empty()) std::memcpy(v.data.data(), values.data(), v.data.size());
  return v;
}

template <class T>
std::vector<T> read(const TensorValue& v, const char* dtype) {
  if (v.dtype != dtype) fail(ErrorCode::kInvalidArgument, "TensorValue", "is {}, not {}", v.dtype, dtype);
  std::vector<T> out(v.data.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data.data(), v.data.size());
  return out;
}

}  // namespace

struct Workflow::Impl {
  workflow::Program program;
};

TensorValue TensorValue::int64(const std::vector<std::int64_t>& values, std::vector<std::int64_t> shape) {
  return make("int64", values, std::move(shape));
}
TensorValue TensorValue::float32(const std::vector<float>& values, std::vector<std::int64_t> shape) {
  return make("float32", values, std::move(shape));
}
TensorValue TensorValue::boolean(const std::vector<bool>& values, std::vector<std::int64_t> shape) {
  std::vector<std::uint8_t> bytes(values.begin(), values.end());
  TensorValue v = make("bool", bytes, std::move(shape));
  return v;
}
TensorValue TensorValue::bytes(const void* data, std::size_t size) {
  TensorValue v{"uint8", {static_cast<std::int64_t>(size)}, std::vector<std::byte>(size)};
  if (size) std::memcpy(v.data.data(), data, size);
  return v;
}
std::vector<std::int64_t> TensorValue::as_int64() const { return read<std::int64_t>(*this, "int64"); }
std::vector<float> TensorValue::as_float32() const { return read<float>(*this, "float32"); }

std::vector<std::pair<std::int64_t, const TensorValue*>> WorkflowOutputs::rows(const std::string& output) const {
  std::vector<std::pair<std::int64_t, const TensorValue*>> out;
  const std::string prefix = output + ".row.";
  for (const auto& [key, value] : outputs) {
    if (key.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = key.substr(prefix.size());
    if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) continue;
    out.emplace_back(std::stoll(rest), &value);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

Workflow::Workflow(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Workflow::~Workflow() = default;

std::shared_ptr<const Workflow> Workflow::load(const std::filesystem::path& package) {
  return std::shared_ptr<const Workflow>(new Workflow(std::make_unique<Impl>(Impl{workflow::load_program(package)})));
}

WorkflowOutputs Workflow::run(const WorkflowRequest& request, const EmitListener& on_emit) const {
  workflow::RunRequest r;
  for (const auto& [name, value] : request.inputs) r.tensors.emplace(name, to_tensor(name, value));
  std::vector<std::string> specs;
  for (const auto& [name, json] : request.json_inputs) {
    const auto first = json.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || json[first] == '@')  // a spec's @FILE form is the CLI's, not this API's
      fail(ErrorCode::kInvalidArgument, "input '" + name + "'", "must be a JSON nested array or scalar");
    specs.push_back(name + "=" + json);
  }
  workflow::add_input_tensors(impl_->program.workflow(), specs, r);
  r.max_new_tokens = request.max_new_tokens;
  r.seed = request.seed;
  r.temperature = request.temperature;
  r.top_p = request.top_p;
  r.min_p = request.min_p;
  r.top_k = request.top_k;
  r.stop_on_eos = request.stop_on_eos;
  if (request.adapters) {
    r.adapters.emplace();
    for (const auto& row : *request.adapters) {
      auto& out = r.adapters->emplace_back();
      for (const auto& a : row) out.push_back({a.name, a.scale});
    }
  }
  workflow::EmitCallback listener;
  if (on_emit)
    listener = [&](const std::string& output, std::int64_t row, const ort::Tensor& chunk) { on_emit(output, row, to_value(chunk)); };
  auto result = workflow::run(impl_->program, std::move(r), listener);
  WorkflowOutputs out;
  for (auto& profile : workflow::transcribe(impl_->program.transcriptions, result)) {
    auto& rows = out.transcriptions[profile.profile];
    for (auto& row : profile.rows) rows.push_back({std::move(row.text), std::move(row.ids)});
  }
  for (const auto& [key, tensor] : result.outputs) out.outputs.emplace(key, to_value(tensor));
  return out;
}

std::vector<MediaFile> Workflow::encode_media(const WorkflowOutputs& outputs) const {
  workflow::RunResult result;
  for (const auto& [key, value] : outputs.outputs) result.outputs.emplace(key, to_tensor(key, value));
  std::vector<MediaFile> files;
  for (auto& f : workflow::media_files(impl_->program.workflow(), result)) files.push_back({f.path, std::move(f.bytes)});
  return files;
}

AdapterLifecycle Workflow::adapter_lifecycle() const {
  AdapterLifecycle out;
  if (!impl_->program.lora) return out;
  const auto s = impl_->program.lora->lifecycle();
  out = {s.loads, s.cache_hits, s.evictions, s.reloads, s.capture_invalidations, s.replayed_plans, s.cached};
  return out;
}

}  // namespace ogai
