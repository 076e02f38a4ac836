// ONNX Runtime's exception messages made readable: they carry its source locations
// ("/onnxruntime_src/onnxruntime/core/graph/graph.cc:1234") and C++ signatures
// ("onnxruntime::Graph::Graph(const onnxruntime::Model&, ...)"), which say nothing to whoever
// loads a package. Internal to src/ort.
#pragma once

#include <string>
#include <string_view>

namespace ogai::ort {

// `message` without source locations and onnxruntime:: signatures, its whitespace collapsed and
// cut to 400 bytes; "an unspecified error" when nothing is left.
std::string readable_ort_message(std::string_view message);

}  // namespace ogai::ort
