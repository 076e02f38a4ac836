// Which media a workflow package serves instead of tokens (include/ogai/media_generation.h):
//   speech  a text-assembly@1 component and exactly one buffered pcm_s16_le WAV output
//           (workflow::the_speech_output; two such outputs are refused there, naming both);
//   image   exactly one `role: image` output with a value_range (two are refused naming both).
// Found once at load; immutable after. find_media_workflow() returns nullopt for a package that
// is neither (a token workflow, a video package: ogai run / ogai::Workflow write those).
#pragma once

#include <optional>
#include <string>

#include "workflow/program.h"
#include "workflow/text_assembly.h"

namespace ogai::generate {

struct MediaWorkflow {
  std::string kind;    // "speech" | "image"
  std::string output;  // the output it encodes
  std::optional<workflow::TextAssemblyComponent> assembly;  // speech
};

std::optional<MediaWorkflow> find_media_workflow(const workflow::Program& program);

}  // namespace ogai::generate
