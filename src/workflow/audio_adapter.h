// The native onnx-genai.audio-preprocess@1 adapter: runs the package's `preprocessing.audio`
// program (src/media/audio/program.h) on the bytes of its `encoded` input (uint8 [bytes], one
// clip) and returns the program's outputs under the roles of the ports the invoking step binds
// them to: the step's output `PORT: VALUE` receives the program output whose `name` is VALUE.
// Prepared at load (make_audio_preprocess_adapter): the program is parsed and checked, and every
// bound port must name a program output (and every program output must be bound), else the
// load is refused naming the document path. Decoding budgets: media::audio::DecodeLimits'
// defaults. Outputs are typed by the program's `dtype` (float32, float16, bfloat16, int64,
// int32, bool). Immutable after load; run() is const and thread-safe.
#pragma once

#include <memory>

#include "workflow/adapter.h"

namespace ogai::workflow {

std::unique_ptr<const Adapter> make_audio_preprocess_adapter(const AdapterSite& site);

// The onnx-genai.text-assembly@1 component: its processor artifact is loaded and checked at
// load (text_assembly.h); invoking it from a workflow step is refused when the step runs (it is
// an API-boundary contract: a speech route assembles the prompt before the workflow).
std::unique_ptr<const Adapter> make_text_assembly_adapter(const AdapterSite& site);

}  // namespace ogai::workflow
