#include "ort/session.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <unordered_map>

#include "base/log.h"
#include "onnx/graph_info.h"
#include "onnx/textproto.h"
#include "ort/cuda_provider.h"
#include "ort/session_impl.h"

namespace ogai::ort {
namespace {

PortInfo port_info(const std::string& name, const Ort::TypeInfo& type) {
  PortInfo port;
  port.name = name;
  if (type.GetONNXType() != ONNX_TYPE_TENSOR) return port;
  auto info = type.GetTensorTypeAndShapeInfo();
  port.dtype = static_cast<DataType>(static_cast<int>(info.GetElementType()));
  port.shape = info.GetShape();
  port.symbols.resize(port.shape.size());
  std::vector<const char*> symbols(port.shape.size(), nullptr);
  info.GetSymbolicDimensions(symbols.data(), symbols.size());
  for (std::size_t i = 0; i < symbols.size(); ++i)
    if (symbols[i] != nullptr) port.symbols[i] = symbols[i];
  return port;
}

// Returns where the session will run.
Location append_execution_provider(Ort::SessionOptions& so, const SessionOptions& options, const std::string& origin) {
  const std::string& ep = options.execution_provider;
  if (ep == "cpu") return {};
  if (ep != "cuda")
    fail(ErrorCode::kInvalidArgument, "execution provider", "'{}' is not one of cpu, cuda", ep);
  CudaSupport cuda = cuda_support();
  if (!cuda.usable()) {
    if (!options.allow_cpu_fallback) fail_cpu_only(cuda);
    log(LogLevel::kWarn, "{}: CUDA unavailable (the ONNX Runtime in use is CPU-only); falling back to CPU as asked", origin);
    return {};
  }
  try {
    if (options.cuda_options.empty()) {
      OrtCUDAProviderOptions cuda_options{};
      cuda_options.device_id = options.device_id;
      so.AppendExecutionProvider_CUDA(cuda_options);
    } else {  // a package's own provider options (V2 keys, refused by ORT when unknown)
      Ort::CUDAProviderOptions cuda_options;
      std::unordered_map<std::string, std::string> keys(options.cuda_options.begin(), options.cuda_options.end());
      keys["device_id"] = std::to_string(options.device_id);
      cuda_options.Update(keys);
      so.AppendExecutionProvider_CUDA_V2(*cuda_options);
    }
    return {Device::kCuda, options.device_id};
  } catch (const Ort::Exception& e) {
    if (!options.allow_cpu_fallback) fail_cuda_start(origin, e.what());
    log(LogLevel::kWarn, "{}: CUDA unavailable ({}); falling back to CPU as asked", origin, e.what());
  }
  return {};
}

Ort::SessionOptions make_options(const SessionOptions& options, const std::string& origin, Location& device) {
  environment();  // the process-wide env registers ORT's default logger, which appending an EP needs
  Ort::SessionOptions so;
  if (options.intra_op_threads > 0) so.SetIntraOpNumThreads(options.intra_op_threads);
  if (options.inter_op_threads > 0) so.SetInterOpNumThreads(options.inter_op_threads);
  so.SetGraphOptimizationLevel(static_cast<GraphOptimizationLevel>(
      options.graph_optimization_level.value_or(static_cast<int>(GraphOptimizationLevel::ORT_ENABLE_ALL))));
  if (options.cpu_mem_arena) *options.cpu_mem_arena ? so.EnableCpuMemArena() : so.DisableCpuMemArena();
  if (options.mem_pattern) *options.mem_pattern ? so.EnableMemPattern() : so.DisableMemPattern();
  for (const auto& [key, value] : options.config_entries) so.AddConfigEntry(key.c_str(), value.c_str());
  if (options.enable_profiling) so.EnableProfiling("ogai_profile");
  device = append_execution_provider(so, options, origin);
  return so;
}

std::unique_ptr<Session::Impl> finish(Ort::Session session, std::string origin, Location device) {
  auto impl = std::make_unique<Session::Impl>();
  impl->origin = std::move(origin);
  impl->device = device;
  impl->session = std::move(session);
  Ort::AllocatorWithDefaultOptions allocator;
  for (std::size_t i = 0; i < impl->session.GetInputCount(); ++i)
    impl->inputs.push_back(port_info(impl->session.GetInputNameAllocated(i, allocator).get(),
                                     impl->session.GetInputTypeInfo(i)));
  for (std::size_t i = 0; i < impl->session.GetOutputCount(); ++i)
    impl->outputs.push_back(port_info(impl->session.GetOutputNameAllocated(i, allocator).get(),
                                      impl->session.GetOutputTypeInfo(i)));
  return impl;
}

const PortInfo* find_port(const std::vector<PortInfo>& ports, std::string_view name) {
  for (const auto& p : ports)
    if (p.name == name) return &p;
  return nullptr;
}


}  // namespace

// Names the fed inputs whose type or rank differ from the graph's (ORT's message does not).
std::string describe_mismatches(const Session& session, std::span<const std::string> names,
                                std::span<const Tensor* const> inputs) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const PortInfo* port = session.find_input(names[i]);
    if (port == nullptr) {
      text += fmt::format("; '{}' is not an input of this graph", names[i]);
    } else if (port->dtype != inputs[i]->dtype() || port->shape.size() != inputs[i]->shape().size()) {
      text += fmt::format("; input '{}' was fed {} {}, the graph expects {} of rank {}", names[i],
                          dtype_name(inputs[i]->dtype()), shape_string(inputs[i]->shape()), dtype_name(port->dtype),
                          port->shape.size());
    }
  }
  return text;
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

Session Session::open(const std::filesystem::path& model, const SessionOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(model, ec))
    fail(ErrorCode::kNotFound, model.string(), "model file not found");
  if (onnx::is_textproto_path(model))
    return from_bytes(onnx::textproto_to_binary(model), options, model.parent_path(), model.string());
  std::string origin = model.string();
  return guard(origin, [&] {
    Location device;
    Ort::SessionOptions so = make_options(options, origin, device);
    return Session(finish(Ort::Session(environment(), model.c_str(), so), origin, device));
  }, "could not load the graph");
}

Session Session::from_bytes(std::string_view bytes, const SessionOptions& options,
                            const std::filesystem::path& external_data_dir, std::string origin) {
  return guard(origin, [&] {
    Location device;
    Ort::SessionOptions so = make_options(options, origin, device);
    std::string dir = external_data_dir.empty() ? "." : external_data_dir.string();
    so.AddConfigEntry("session.model_external_initializers_file_folder_path", dir.c_str());
    return Session(finish(Ort::Session(environment(), bytes.data(), bytes.size(), so), origin, device));
  }, "could not load the graph");
}

const std::string& Session::origin() const { return impl_->origin; }
const std::vector<PortInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<PortInfo>& Session::outputs() const { return impl_->outputs; }
const PortInfo* Session::find_input(std::string_view name) const { return find_port(impl_->inputs, name); }
const PortInfo* Session::find_output(std::string_view name) const { return find_port(impl_->outputs, name); }
Location Session::device() const { return impl_->device; }

std::vector<Tensor> Session::run(std::span<const std::string> input_names, std::span<const Tensor* const> inputs,
                                 std::span<const std::string> output_names) const {
  std::vector<Tensor> outputs(output_names.size());
  run_into(input_names, inputs, output_names, outputs);
  return outputs;
}

double Session::run_into(std::span<const std::string> input_names, std::span<const Tensor* const> inputs,
                       std::span<const std::string> output_names, std::span<Tensor> outputs) const {
  if (input_names.size() != inputs.size() || output_names.size() != outputs.size())
    fail(ErrorCode::kInternal, impl_->origin, "run: {} input names for {} tensors, {} output names for {} slots",
         input_names.size(), inputs.size(), output_names.size(), outputs.size());
  constexpr std::size_t kInline = 64;  // avoid heap allocation for typical decoders
  const char* in_names_inline[kInline];
  const OrtValue* in_values_inline[kInline];
  const char* out_names_inline[kInline];
  OrtValue* out_values_inline[kInline];
  std::vector<const char*> in_names_heap, out_names_heap;
  std::vector<const OrtValue*> in_values_heap;
  std::vector<OrtValue*> out_values_heap;
  const char** in_names = in_names_inline;
  const OrtValue** in_values = in_values_inline;
  const char** out_names = out_names_inline;
  OrtValue** out_values = out_values_inline;
  if (inputs.size() > kInline) {
    in_names_heap.resize(inputs.size());
    in_values_heap.resize(inputs.size());
    in_names = in_names_heap.data();
    in_values = in_values_heap.data();
  }
  if (outputs.size() > kInline) {
    out_names_heap.resize(outputs.size());
    out_values_heap.resize(outputs.size());
    out_names = out_names_heap.data();
    out_values = out_values_heap.data();
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    in_names[i] = input_names[i].c_str();
    in_values[i] = inputs[i]->get();
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    out_names[i] = output_names[i].c_str();
    out_values[i] = outputs[i].get();  // nullptr: ORT allocates
  }
  const OrtApi& api = Ort::GetApi();
  const auto start = std::chrono::steady_clock::now();
  OrtStatus* status = api.Run(impl_->session, nullptr, in_names, in_values, inputs.size(), out_names,
                              outputs.size(), out_values);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != nullptr) {
    std::string message = api.GetErrorMessage(status);
    api.ReleaseStatus(status);
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (outputs[i].empty() && out_values[i] != nullptr) api.ReleaseValue(out_values[i]);
    fail(ErrorCode::kRuntime, impl_->origin, "ONNX Runtime run failed: {}{}", message,
         describe_mismatches(*this, input_names, inputs));
  }
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].empty()) outputs[i] = Tensor::adopt(out_values[i]);
  return seconds;
}

}  // namespace ogai::ort
