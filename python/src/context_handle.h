// ogai.Context: the reusable state of one conversation (ogai::Context: KV cache and the tokens it
// holds), shared by the Python object and the generations that use it. A Context serves one
// generation at a time: a ContextLease marks it busy, and a second generation on it meanwhile is
// an InvalidArgumentError instead of a data race.
#pragma once

#include <atomic>
#include <memory>

#include <pybind11/pybind11.h>

#include "ogai/ogai.h"

namespace ogai::python {

namespace py = pybind11;

struct ContextHandle {
  explicit ContextHandle(std::shared_ptr<const Model> m) : model(std::move(m)), context(*model) {}
  std::shared_ptr<const Model> model;  // first: the context refers to it
  Context context;
  std::atomic<bool> busy{false};
};

class ContextLease {
 public:
  // Null `handle`: no context (get() is null). Throws when the context is in use.
  explicit ContextLease(std::shared_ptr<ContextHandle> handle);
  ~ContextLease();
  ContextLease(const ContextLease&) = delete;
  ContextLease& operator=(const ContextLease&) = delete;
  Context* get() const { return handle_ ? &handle_->context : nullptr; }

 private:
  std::shared_ptr<ContextHandle> handle_;
};

// Takes the `context` keyword out of `kwargs` (None or absent: null); TypeError for another type,
// InvalidArgumentError for a context of another model.
std::shared_ptr<ContextHandle> take_context(const Model& model, py::kwargs& kwargs);

}  // namespace ogai::python
