// ogai.validate(path): ogai::validate() as a ValidationResult of ValidationProblems.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "bindings.h"

namespace ogai::python {

void bind_validate(py::module_& m) {
  py::class_<ValidationProblem>(m, "ValidationProblem", "One problem; str(problem) is its `RULE path: message` line.")
      .def_readonly("rule", &ValidationProblem::rule)
      .def_readonly("path", &ValidationProblem::path)
      .def_readonly("message", &ValidationProblem::message)
      .def("__str__", &ValidationProblem::text)
      .def("__repr__", [](const ValidationProblem& p) { return "ValidationProblem(" + py::repr(py::str(p.text())).cast<std::string>() + ")"; });
  py::class_<ValidationResult>(m, "ValidationResult", "Every problem validate() found; true when there is none.")
      .def_property_readonly("valid", &ValidationResult::valid)
      .def_readonly("problems", &ValidationResult::problems)
      .def("__bool__", &ValidationResult::valid);
  m.def("validate", &validate, py::arg("path"), py::call_guard<py::gil_scoped_release>(),
        "checks the package at `path` as `ogai validate` does, without loading it; raises NotFoundError when the "
        "path holds no package");
}

}  // namespace ogai::python
