// Private to src/ort: includes ONNX Runtime's C++ API and converts its exceptions.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <string>

#include "base/error.h"
#include "ort/ort_message.h"

namespace ogai::ort {

// The process-wide environment, created on first use and kept until exit (every session needs
// it alive; ORT requires exactly one). Its telemetry is off (no files under TMPDIR or ~/.cache)
// unless OGAI_ORT_TELEMETRY=1: creating it sets ORT_DISABLE_TELEMETRY=1 with setenv().
Ort::Env& environment();

// Runs `body`; an Ort::Exception becomes ogai::Error(kRuntime) naming `where`, its message
// `what` ("could not load the graph") followed by ONNX Runtime's, made readable (ort_message.h).
template <typename F>
auto guard(const std::string& where, F&& body, const char* what = "failed") -> decltype(body()) {
  try {
    return body();
  } catch (const Ort::Exception& e) {
    fail(ErrorCode::kRuntime, where, "ONNX Runtime {}: {}", what, readable_ort_message(e.what()));
  }
}

// Same, with `where` built only when ONNX Runtime throws (for hot paths: tensor creation).
template <typename W, typename F>
auto guard_lazy(W&& where, F&& body, const char* what = "failed") -> decltype(body()) {
  try {
    return body();
  } catch (const Ort::Exception& e) {
    fail(ErrorCode::kRuntime, where(), "ONNX Runtime {}: {}", what, readable_ort_message(e.what()));
  }
}

}  // namespace ogai::ort
