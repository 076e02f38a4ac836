// ogai.Workflow: any package's workflow through ogai::Workflow (include/ogai/workflow.h), with
// named inputs (nested lists / NumPy arrays typed by the input's contract, or bytes for a media
// input) and its outputs as {dtype, shape, data} plus its media outputs encoded as files
// ({"audio.wav": b"RIFF...", "image.png": b"\x89PNG..."}).
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "bindings.h"

namespace ogai::python {
namespace {

struct WorkflowHandle {
  std::shared_ptr<const Workflow> workflow;
};

WorkflowHandle load(const std::string& path) {
  WorkflowHandle h;
  py::gil_scoped_release release;
  h.workflow = Workflow::load(path);
  return h;
}

// A nested list / NumPy array / scalar as JSON text (NumPy through tolist()).
std::string as_json(const py::handle& value) {
  py::object v = py::reinterpret_borrow<py::object>(value);
  if (py::hasattr(v, "tolist")) v = v.attr("tolist")();
  return py::module_::import("json").attr("dumps")(v).cast<std::string>();
}

template <class T>
py::list values(const TensorValue& v) {
  py::list out;
  const std::size_t n = v.data.size() / sizeof(T);
  for (std::size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, v.data.data() + i * sizeof(T), sizeof(T));
    out.append(x);
  }
  return out;
}

py::dict tensor_dict(const TensorValue& v) {
  py::dict d;
  d["dtype"] = v.dtype;
  d["shape"] = v.shape;
  if (v.dtype == "float32") d["data"] = values<float>(v);
  else if (v.dtype == "float64") d["data"] = values<double>(v);
  else if (v.dtype == "int64") d["data"] = values<std::int64_t>(v);
  else if (v.dtype == "int32") d["data"] = values<std::int32_t>(v);
  else if (v.dtype == "uint8") d["data"] = values<std::uint8_t>(v);
  else if (v.dtype == "int8") d["data"] = values<std::int8_t>(v);
  else if (v.dtype == "bool") d["data"] = values<bool>(v);
  else d["data"] = py::bytes(reinterpret_cast<const char*>(v.data.data()), v.data.size());  // float16, bfloat16
  return d;
}

py::dict run(const WorkflowHandle& h, const py::dict& inputs, std::optional<std::int64_t> max_new_tokens,
             std::optional<std::int64_t> seed, bool media) {
  WorkflowRequest request;
  for (const auto& [key, value] : inputs) {
    const std::string name = py::str(key);
    if (py::isinstance<py::bytes>(value) || py::isinstance<py::bytearray>(value)) {
      const std::string bytes = py::isinstance<py::bytes>(value) ? value.cast<std::string>()
                                                                  : py::bytes(py::reinterpret_borrow<py::object>(value)).cast<std::string>();
      request.inputs[name] = TensorValue::bytes(bytes.data(), bytes.size());
    } else {
      request.json_inputs[name] = as_json(value);
    }
  }
  request.max_new_tokens = max_new_tokens;
  request.seed = seed;
  WorkflowOutputs outputs;
  std::vector<MediaFile> files;
  {
    py::gil_scoped_release release;
    outputs = h.workflow->run(request);
    if (media) files = h.workflow->encode_media(outputs);
  }
  py::dict out, tensors, encoded;
  for (const auto& [key, value] : outputs.outputs) tensors[py::str(key)] = tensor_dict(value);
  for (const auto& f : files)
    encoded[py::str(f.path)] = py::bytes(reinterpret_cast<const char*>(f.bytes.data()), f.bytes.size());
  out["outputs"] = tensors;
  out["media"] = encoded;
  if (!outputs.transcriptions.empty()) {  // the CTC profiles' text, as `ogai run --json` prints it
    py::dict transcripts;
    for (const auto& [profile, rows] : outputs.transcriptions) {
      py::list list;
      for (const auto& row : rows) {
        py::dict d;
        d["text"] = py::str(row.text);
        d["ids"] = row.ids;
        list.append(d);
      }
      transcripts[py::str(profile)] = list;
    }
    out["transcriptions"] = transcripts;
  }
  return out;
}

}  // namespace

void bind_workflow(py::module_& m) {
  py::class_<WorkflowHandle>(m, "Workflow", "A package's workflow run through ogai's interpreter.")
      .def(py::init(&load), py::arg("path"), "loads and validates the package at `path`")
      .def("run", &run, py::arg("inputs"), py::arg("max_new_tokens") = py::none(), py::arg("seed") = py::none(),
           py::arg("media") = true,
           "runs the workflow. inputs: {NAME: nested list / NumPy array (typed by the input's contract) or bytes "
           "(a media file for an encoded input)}. Returns {'outputs': {KEY: {'dtype', 'shape', 'data'}}, 'media': "
           "{PATH: bytes}}: the media outputs encoded as `ogai run --output-dir` writes them (audio.wav, image.png, "
           "video/frame-0001.png); media=False skips the encoding. A package with a transcription profile (CTC) "
           "also gets 'transcriptions': {PROFILE: [{'text', 'ids'}, ...]}, one per batch row");
}

}  // namespace ogai::python
