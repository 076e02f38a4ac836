// PYBIND11_MODULE for `ogai._ogai`, the compiled half of the `ogai` package (python/ogai/).
#include "bindings.h"
#include "ogai/sampling_fields.h"
#include "ogai/version.h"

PYBIND11_MODULE(_ogai, m) {
  namespace python = ogai::python;
  m.doc() = "ogai's C++ API in Python (use the `ogai` package, which re-exports it)";
  m.attr("__version__") = OGAI_VERSION_STRING;
  pybind11::tuple fields(ogai::kSamplingFields.size());
  for (std::size_t i = 0; i < ogai::kSamplingFields.size(); ++i)
    fields[i] = std::string(ogai::kSamplingFields[i].name);
  m.attr("SAMPLING_FIELDS") = fields;  // the numeric sampling keywords (ogai/sampling_fields.h)
  python::bind_errors(m);
  python::bind_results(m);
  python::bind_chat_result(m);
  python::bind_stream(m);
  python::bind_chat_stream(m);
  python::bind_context(m);
  python::bind_model(m);
  python::bind_engine(m);
  python::bind_validate(m);
  python::bind_workflow(m);
}
