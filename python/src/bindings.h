// The pieces of the `ogai._ogai` extension module, each binding one concept of the public C++ API
// (include/ogai/) to Python. The binding converts between Python and C++ values; every rule
// (ranges, defaults, messages) stays in the C++ API.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "ogai/ogai.h"

namespace ogai::python {

namespace py = pybind11;

// The loaded model behind ogai.Model (and shared by its tokenizer, streams and engines).
struct ModelHandle {
  std::shared_ptr<const Model> model;
};

void bind_errors(py::module_& m);    // ogai::Error -> ogai.errors classes (errors.cc)
void bind_results(py::module_& m);   // GenerationResult (results.cc)
void bind_chat_result(py::module_& m);  // ChatResult (chat_result.cc)
void bind_stream(py::module_& m);    // TextStream (text_stream_binding.cc)
void bind_chat_stream(py::module_& m);  // ChatStream (chat_stream.cc)
void bind_context(py::module_& m);   // Context (context.cc)
void bind_model(py::module_& m);     // Model, Tokenizer (model.cc)
void bind_engine(py::module_& m);    // Engine, Request (engine.cc)
void bind_validate(py::module_& m);  // validate() (validate.cc)
void bind_workflow(py::module_& m);  // Workflow (workflow.cc)

}  // namespace ogai::python
