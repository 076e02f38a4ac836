// ogai.TextStream: the iterator model.stream() and generate(..., stream=True) return.
#include <pybind11/stl.h>

#include "bindings.h"
#include "text_stream.h"

namespace ogai::python {

namespace {

py::str next_piece(TextStream& stream) {
  std::optional<std::string> piece;
  {
    py::gil_scoped_release release;
    piece = stream.next();
  }
  if (!piece) throw py::stop_iteration();
  return to_str(*piece);
}

py::object result_of(const TextStream& stream) {
  const GenerationResult* result = stream.result();
  return result ? py::cast(*result) : py::none();
}

}  // namespace

void bind_stream(py::module_& m) {
  py::class_<TextStream>(m, "TextStream",
                         "An iterator of text pieces of one running generation. Leaving it early (break, close(), "
                         "or dropping it) cancels the generation; .result holds the whole result once it has ended.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &next_piece)
      .def("close", &TextStream::close, py::call_guard<py::gil_scoped_release>(),
           "cancel the generation if it still runs and wait for it to stop")
      .def_property_readonly("result", &result_of, "the GenerationResult once every piece was read, else None")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](TextStream& s, py::args) {
        py::gil_scoped_release release;
        s.close();
      });
}

}  // namespace ogai::python
