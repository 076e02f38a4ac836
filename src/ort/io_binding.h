// ogai::ort::Binding: one run's inputs and outputs bound through ONNX Runtime's IoBinding, so
// that each value stays where it is (host or device) and outputs go where the caller asks:
// into a pre-allocated tensor (a shared KV buffer written in place), or to memory ORT allocates
// at a Location (presents on the device, logits on the host). With the CPU provider every
// location is the host and a bound run computes what Session::run_into computes, byte for byte.
//
// Use per run: clear(), bind_input() each feed, bind_output()/bind_output_to() each output, run(),
// then take_outputs() and clear() again: a binding holds a reference to every bound value (and
// to ORT-allocated outputs) until it is cleared, which would keep a replaced KV past alive. Binding an input whose memory is not where the graph runs makes ORT copy it
// there during run() (small host feeds such as ids and the mask on a GPU session).
// Cost: creating a Binding is one ORT object; binding a value is a name lookup; nothing is copied
// for values already at the right location. Not thread-safe: one Binding per running step; the
// Session must outlive it, and bound input tensors must stay alive until run() returns.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ort/location.h"
#include "ort/tensor.h"

struct OrtIoBinding;

namespace ogai::ort {

class Session;

class Binding {
 public:
  explicit Binding(const Session& session);
  ~Binding();
  Binding(Binding&&) noexcept;
  Binding& operator=(Binding&&) noexcept;
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;

  // Forgets every bound input and output.
  void clear();
  void bind_input(const std::string& name, const Tensor& value);
  // ORT writes output `name` into `destination` (its shape must be the output's).
  void bind_output(const std::string& name, Tensor& destination);
  // ORT allocates output `name` at `location`.
  void bind_output_to(const std::string& name, Location location);
  // Runs the session on what is bound; returns the seconds spent inside ORT's RunWithBinding.
  // Throws ogai::Error(kRuntime) naming the model, ORT's message and any bound input whose type
  // or rank differs from the graph's.
  double run();
  // The bound outputs, in the order they were bound: every empty slot receives the tensor ORT
  // produced; a non-empty slot (a bind_output destination) is left as it is. slots.size() must be
  // the number of bound outputs.
  void take_outputs(std::span<Tensor> slots);

 private:
  const Session* session_;
  OrtIoBinding* binding_ = nullptr;
  std::vector<std::string> input_names_;  // first inputs_ are bound (slots reused across runs)
  std::vector<const Tensor*> input_values_;
  std::size_t inputs_ = 0;
  std::size_t outputs_ = 0;
  bool device_outputs_ = false;
};

}  // namespace ogai::ort
