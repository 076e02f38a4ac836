// The native adapters ogai executes, one line each (adapter.h). Each unit exposes its factory in
// its own header; adding an adapter adds one include and one line here.
#include "workflow/adapter.h"
#include "workflow/audio_adapter.h"
#include "workflow/grammar_adapter.h"
#include "workflow/image_adapter.h"
#include "workflow/parameter_overlay.h"

namespace ogai::workflow {

const std::vector<AdapterEntry>& builtin_adapters() {
  static const std::vector<AdapterEntry> entries = {
      {"onnx-genai.grammar-guidance", "1", make_grammar_adapter},
      {"onnx-genai.image-preprocess", "1", make_image_preprocess_adapter},
      {"onnx-genai.audio-preprocess", "1", make_audio_preprocess_adapter},
      {"onnx-genai.text-assembly", "1", make_text_assembly_adapter},
      {"onnx-genai.parameter-overlay", "1", make_parameter_overlay_adapter},
  };
  return entries;
}

}  // namespace ogai::workflow
