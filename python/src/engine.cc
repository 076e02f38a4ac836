// ogai.Engine (continuous batching over one model) and ogai.Request (one submitted generation).
#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"

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

std::shared_ptr<GenerationHandle> submit(EngineHandle& e, py::handle prompt, const py::kwargs& kwargs) {
  Prompt p = prompt_from("submit", prompt);
  GenerateArgs args = generate_args("submit", kwargs);
  if (!e.engine) throw Error(ErrorCode::kInvalidArgument, "engine", "is closed");
  if (args.stream) throw py::type_error("submit(): stream=True is not supported (use Model.stream)");
  py::gil_scoped_release release;
  if (const auto* text = std::get_if<std::string>(&p)) return e.engine->submit(*text, args.options);
  return e.engine->submit(std::get<std::vector<std::int32_t>>(p), args.options);
}

// Engine::~Engine cancels what runs and joins its thread: without the GIL, so that nothing
// waiting on Python stalls it.
void shut_down(EngineHandle& e) {
  py::gil_scoped_release release;
  e.engine.reset();
}

}  // namespace

void bind_engine(py::module_& m) {
  py::class_<GenerationHandle, std::shared_ptr<GenerationHandle>>(m, "Request", "A generation submitted to an Engine.")
      .def("wait", &GenerationHandle::wait, py::call_guard<py::gil_scoped_release>(),
           "blocks until the generation ends; its GenerationResult (once per request)")
      .def("cancel", &GenerationHandle::cancel, "ends the generation at the engine's next step")
      .def_property_readonly("done", &GenerationHandle::done);
  py::class_<EngineHandle>(m, "Engine",
                           "Continuous batching over one Model: submit() from any thread; each result equals "
                           "Model.generate with the same options and seed.")
      .def(py::init(&create), py::arg("model"), py::arg("max_sequences") = 16)
      .def("submit", &submit, py::arg("prompt"), "queues a generation (generate's keywords); returns a Request")
      .def("close", &shut_down, "cancels what still runs and stops the engine's thread")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](EngineHandle& e, py::args) { shut_down(e); });
}

}  // namespace ogai::python
