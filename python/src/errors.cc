// ogai::Error crosses into Python as the ogai.errors class of its code, with the same message.
#include "bindings.h"

namespace ogai::python {

namespace {

void raise(const Error& e) {
  py::object exception = py::module_::import("ogai.errors").attr("_make")(error_code_name(e.code()), e.where(), e.what());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
}

}  // namespace

void bind_errors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise(e);
    }
  });
}

}  // namespace ogai::python
