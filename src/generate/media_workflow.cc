#include "generate/media_workflow.h"

#include <vector>

#include "base/error.h"
#include "workflow/image_output.h"
#include "workflow/media_output.h"

namespace ogai::generate {

std::optional<MediaWorkflow> find_media_workflow(const workflow::Program& program) {
  const auto& wf = program.workflow();
  std::vector<std::string> images;
  for (const auto& [name, out] : wf.outputs)
    if (out.role == "image" && workflow::is_pixel_output(out)) images.push_back(name);
  if (images.size() > 1)
    fail(ErrorCode::kInvalidPackage, "pipeline.workflow.outputs",
         "{} and {} are both image outputs; exactly one is needed to know which one an image request returns",
         images[0], images[1]);
  if (images.size() == 1) return MediaWorkflow{"image", images[0], std::nullopt};
  if (workflow::buffered_pcm16_wav_outputs(wf).empty()) return std::nullopt;
  auto assembly = workflow::find_text_assembly(program.package);
  if (!assembly) return std::nullopt;
  return MediaWorkflow{"speech", workflow::the_speech_output(wf), std::move(assembly)};
}

}  // namespace ogai::generate
