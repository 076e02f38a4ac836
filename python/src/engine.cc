// ogai.Engine (continuous batching over one model), ogai.Request (one submitted generation) and
// ogai.RequestStream (one submitted generation read as text pieces).
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"
#include "request_stream.h"

namespace ogai::python {

namespace {

struct EngineHandle {
  std::shared_ptr<Engine> engine;
};

std::unique_ptr<EngineHandle> create(const ModelHandle& model, int max_sequences) {
  EngineOptions options;
  options.max_sequences = max_sequences;
  py::gil_scoped_release release;
  return std::make_unique<EngineHandle>(EngineHandle{std::make_shared<Engine>(model.model, options)});
}

// A Request, or a RequestStream when the call asked for stream=True.
py::object submit_as(const char* name, EngineHandle& e, py::handle prompt, const py::kwargs& kwargs, bool stream) {
  Prompt p = prompt_from(name, prompt);
  GenerateArgs args = generate_args(name, kwargs);
  if (!e.engine) throw Error(ErrorCode::kInvalidArgument, "engine", "is closed");
  if (stream || args.stream) {
    std::unique_ptr<RequestStream> s;
    {
      py::gil_scoped_release release;
      s = std::make_unique<RequestStream>(*e.engine, p, args.options);
    }
    return py::cast(std::move(s));
  }
  std::shared_ptr<GenerationHandle> handle;
  {
    py::gil_scoped_release release;
    if (const auto* text = std::get_if<std::string>(&p)) handle = e.engine->submit(*text, args.options);
    else handle = e.engine->submit(std::get<std::vector<std::int32_t>>(p), args.options);
  }
  return py::cast(std::move(handle));
}

py::str next_piece(RequestStream& stream) {
  std::optional<std::string> piece;
  {
    py::gil_scoped_release release;
    piece = stream.next();
  }
  if (!piece) throw py::stop_iteration();
  return to_str(*piece);
}

py::object result_of(RequestStream& stream) {
  const GenerationResult* result = stream.result();
  return result ? py::cast(*result) : py::none();
}

void bind_request_stream(py::module_& m) {
  py::class_<RequestStream>(m, "RequestStream",
                            "An iterator of text pieces of one generation running in an Engine. Leaving it early "
                            "(break, close(), or dropping it) cancels the generation; .result holds the whole result "
                            "once it has ended.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &next_piece)
      .def("close", &RequestStream::close, py::call_guard<py::gil_scoped_release>(),
           "cancel the generation if it still runs and wait for it to end")
      .def_property_readonly("result", &result_of, "the GenerationResult once every piece was read, else None")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](RequestStream& s, py::args) {
        py::gil_scoped_release release;
        s.close();
      });
}

// Engine::~Engine cancels what runs and joins its thread: without the GIL, so that nothing
// waiting on Python stalls it.
void shut_down(EngineHandle& e) {
  py::gil_scoped_release release;
  e.engine.reset();
}

}  // namespace

void bind_engine(py::module_& m) {
  bind_request_stream(m);
  py::class_<GenerationHandle, std::shared_ptr<GenerationHandle>>(m, "Request", "A generation submitted to an Engine.")
      .def("wait", &GenerationHandle::wait, py::call_guard<py::gil_scoped_release>(),
           "blocks until the generation ends; its GenerationResult (once per request)")
      .def("cancel", &GenerationHandle::cancel, "ends the generation at the engine's next step")
      .def_property_readonly("done", &GenerationHandle::done);
  py::class_<EngineHandle>(m, "Engine",
                           "Continuous batching over one Model: submit() from any thread; each result equals "
                           "Model.generate with the same options and seed.")
      .def(py::init(&create), py::arg("model"), py::arg("max_sequences") = 16)
      .def("submit", [](EngineHandle& e, py::handle prompt, const py::kwargs& kwargs) {
             return submit_as("submit", e, prompt, kwargs, false);
           }, py::arg("prompt"), "queues a generation (generate's keywords); returns a Request, or with stream=True "
           "a RequestStream")
      .def("stream", [](EngineHandle& e, py::handle prompt, const py::kwargs& kwargs) {
             return submit_as("stream", e, prompt, kwargs, true);
           }, py::arg("prompt"), "submit(..., stream=True): a RequestStream of the generation's text pieces")
      .def("close", &shut_down, "cancels what still runs and stops the engine's thread")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](EngineHandle& e, py::args) { shut_down(e); });
}

}  // namespace ogai::python
