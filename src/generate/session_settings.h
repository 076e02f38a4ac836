// ONNX Runtime GenAI's session settings (importer::SessionSettings, from an imported folder's
// genai_config.json) mapped onto ONNX Runtime's own for the provider ogai runs on.
//
// Mapped: intra/inter-op threads (unless the caller set them), graph_optimization_level,
// enable_cpu_mem_arena, enable_mem_pattern, enable_profiling, `session.*` config entries, and a
// CUDA entry's options when ogai runs on CUDA (device_id picks the device unless the caller
// asked for one; the rest go to ONNX Runtime's CUDA provider options as they are, which refuse
// keys they do not know). Ignored, with one warn-level line each naming it: every option of a
// provider ogai does not run on (a CUDA option on the CPU, a DirectML or QNN entry), and
// `enable_cuda_graph` on CUDA, since ogai's decode steps change their input shapes (growing KV,
// joining rows) so a captured graph could not be replayed; none of these changes the outputs.
// Also logged: settings the importer found without effect anywhere (SessionSettings::ignored).
// Pure besides the log lines.
#pragma once

#include <string>

#include "importer/genai_config.h"
#include "ort/session.h"

namespace ogai::generate {

void apply_session_settings(const importer::SessionSettings& settings, ort::SessionOptions& options,
                            const std::string& origin);

}  // namespace ogai::generate
