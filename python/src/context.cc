#include <pybind11/stl.h>

#include "bindings.h"
#include "context_handle.h"

namespace ogai::python {

ContextLease::ContextLease(std::shared_ptr<ContextHandle> handle) : handle_(std::move(handle)) {
  if (handle_ && handle_->busy.exchange(true)) {
    handle_.reset();
    throw Error(ErrorCode::kInvalidArgument, "context", "is in use by another generation (one at a time)");
  }
}

ContextLease::~ContextLease() {
  if (handle_) handle_->busy = false;
}

std::shared_ptr<ContextHandle> take_context(const Model& model, py::kwargs& kwargs) {
  if (!kwargs.contains("context")) return nullptr;
  py::object value = kwargs["context"];
  PyDict_DelItemString(kwargs.ptr(), "context");
  if (value.is_none()) return nullptr;
  if (!py::isinstance<ContextHandle>(value))
    throw py::type_error(std::string("context must be an ogai.Context, not ") + Py_TYPE(value.ptr())->tp_name);
  auto handle = value.cast<std::shared_ptr<ContextHandle>>();
  if (handle->model.get() != &model) throw Error(ErrorCode::kInvalidArgument, "context", "belongs to another model");
  return handle;
}

namespace {

std::vector<std::int32_t> tokens(std::shared_ptr<ContextHandle> c) {
  ContextLease lease(c);
  auto held = c->context.tokens();
  return {held.begin(), held.end()};
}

void reset(std::shared_ptr<ContextHandle> c) {
  ContextLease lease(c);
  c->context.reset();
}

}  // namespace

void bind_context(py::module_& m) {
  py::class_<ContextHandle, std::shared_ptr<ContextHandle>>(
      m, "Context",
      "The state of one conversation (KV cache): generate(..., context=ctx) reuses the longest prefix the prompt "
      "shares with what it holds. One generation at a time.")
      .def(py::init([](const ModelHandle& model) { return std::make_shared<ContextHandle>(model.model); }),
           py::arg("model"))
      .def_property_readonly("tokens", &tokens, "the token ids whose KV the context holds")
      .def("reset", &reset, "forget everything");
}

}  // namespace ogai::python
