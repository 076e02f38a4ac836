#include "generate/transcribe.h"

#include <cstring>

#include "base/error.h"
#include "generate/model_impl.h"
#include "workflow/interpreter.h"

namespace ogai::generate {
namespace {

// The workflow's media input that takes an encoded file: uint8, rank 1.
std::string audio_input(const metadata::Workflow& wf) {
  std::vector<std::string> found;
  for (const auto& [name, in] : wf.inputs)
    if (in.role.kind == metadata::InputRole::Kind::kRuntime && in.role.role == "media" &&
        metadata::canonical_dtype(in.contract.dtype) == DataType::kUint8 && in.contract.rank == 1)
      found.push_back(name);
  if (found.size() != 1)
    fail(ErrorCode::kUnsupported, "model", "the package has {} uint8 [bytes] media inputs; transcribing a file "
         "needs exactly one (an onnx-genai.audio-preprocess@1 program's `encoded` input)", found.size());
  return found.front();
}

}  // namespace

std::string transcription_profile(const Model& model) {
  const auto& w = model.impl().workflow;
  return w && !w->program.transcriptions.empty() ? w->program.transcriptions.front().name : "";
}

std::string transcribe(const Model& model, std::string_view audio) {
  const auto& w = model.impl().workflow;
  if (!w || w->program.transcriptions.empty())
    fail(ErrorCode::kUnsupported, "model", "the package has no transcription profile (profiles.*.decoding) to "
         "transcribe with");
  const workflow::Program& program = w->program;
  workflow::RunRequest request;
  auto bytes = ort::Tensor::allocate(DataType::kUint8, {static_cast<std::int64_t>(audio.size())});
  if (!audio.empty()) std::memcpy(bytes.raw_data(), audio.data(), audio.size());
  request.tensors.emplace(audio_input(program.workflow()), std::move(bytes));
  const workflow::RunResult result = workflow::run(program, std::move(request));
  const auto transcripts = workflow::transcribe({program.transcriptions.front()}, result);
  if (transcripts.empty() || transcripts.front().rows.empty())
    fail(ErrorCode::kRuntime, "profiles." + program.transcriptions.front().name, "the workflow produced no rows");
  return transcripts.front().rows.front().text;
}

}  // namespace ogai::generate
