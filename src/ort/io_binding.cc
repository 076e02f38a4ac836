#include "ort/io_binding.h"

#include <chrono>

#include "ort/memory_info.h"
#include "ort/session_impl.h"

namespace ogai::ort {
namespace {

void check(OrtStatus* status, const Session& session, const char* call) {
  if (status == nullptr) return;
  const OrtApi& api = Ort::GetApi();
  std::string message = api.GetErrorMessage(status);
  api.ReleaseStatus(status);
  fail(ErrorCode::kRuntime, session.origin(), "ONNX Runtime {} failed: {}", call, message);
}

}  // namespace

Binding::Binding(const Session& session) : session_(&session) {
  check(Ort::GetApi().CreateIoBinding(session.impl().session, &binding_), session, "CreateIoBinding");
}

Binding::~Binding() {
  if (binding_ != nullptr) Ort::GetApi().ReleaseIoBinding(binding_);
}

Binding::Binding(Binding&& other) noexcept
    : session_(other.session_), binding_(other.binding_), input_names_(std::move(other.input_names_)),
      input_values_(std::move(other.input_values_)), inputs_(other.inputs_), outputs_(other.outputs_),
      device_outputs_(other.device_outputs_) {
  other.binding_ = nullptr;
}

Binding& Binding::operator=(Binding&& other) noexcept {
  if (this != &other) {
    if (binding_ != nullptr) Ort::GetApi().ReleaseIoBinding(binding_);
    session_ = other.session_;
    binding_ = other.binding_;
    input_names_ = std::move(other.input_names_);
    input_values_ = std::move(other.input_values_);
    inputs_ = other.inputs_;
    outputs_ = other.outputs_;
    device_outputs_ = other.device_outputs_;
    other.binding_ = nullptr;
  }
  return *this;
}

void Binding::clear() {
  Ort::GetApi().ClearBoundInputs(binding_);
  Ort::GetApi().ClearBoundOutputs(binding_);
  inputs_ = 0;
  outputs_ = 0;
  device_outputs_ = false;
}

void Binding::bind_input(const std::string& name, const Tensor& value) {
  check(Ort::GetApi().BindInput(binding_, name.c_str(), value.get()), *session_, "BindInput");
  if (inputs_ == input_names_.size()) {
    input_names_.emplace_back();
    input_values_.emplace_back();
  }
  input_names_[inputs_] = name;  // reuses the slot's capacity
  input_values_[inputs_++] = &value;
}

void Binding::bind_output(const std::string& name, Tensor& destination) {
  check(Ort::GetApi().BindOutput(binding_, name.c_str(), destination.get()), *session_, "BindOutput");
  device_outputs_ = device_outputs_ || !destination.location().host();
  ++outputs_;
}

void Binding::bind_output_to(const std::string& name, Location location) {
  check(Ort::GetApi().BindOutputToDevice(binding_, name.c_str(), memory_info(location)), *session_,
        "BindOutputToDevice");
  device_outputs_ = device_outputs_ || !location.host();
  ++outputs_;
}

double Binding::run() {
  const OrtApi& api = Ort::GetApi();
  const auto start = std::chrono::steady_clock::now();
  if (OrtStatus* status = api.RunWithBinding(session_->impl().session, nullptr, binding_)) {
    std::string message = api.GetErrorMessage(status);
    api.ReleaseStatus(status);
    fail(ErrorCode::kRuntime, session_->origin(), "ONNX Runtime run failed: {}{}", message,
         describe_mismatches(*session_, std::span(input_names_).first(inputs_),
                             std::span(input_values_).first(inputs_)));
  }
  if (device_outputs_) check(api.SynchronizeBoundOutputs(binding_), *session_, "SynchronizeBoundOutputs");
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Binding::take_outputs(std::span<Tensor> slots) {
  OGAI_CHECK(slots.size() == outputs_);
  const OrtApi& api = Ort::GetApi();
  Ort::AllocatorWithDefaultOptions allocator;
  OrtValue** values = nullptr;
  std::size_t count = 0;
  check(api.GetBoundOutputValues(binding_, allocator, &values, &count), *session_, "GetBoundOutputValues");
  // Every returned value is a new reference: adopted into an empty slot, released otherwise.
  for (std::size_t i = 0; i < count; ++i) {
    if (i < slots.size() && slots[i].empty())
      slots[i] = Tensor::adopt(values[i]);
    else
      api.ReleaseValue(values[i]);
  }
  if (values != nullptr) allocator.Free(values);
  OGAI_CHECK(count == slots.size());
}

}  // namespace ogai::ort
