// Model::synthesize_speech and Model::generate_images (include/ogai/media_generation.h): a
// request's fields lowered onto the workflow's runtime roles, one interpreter run, and the
// output encoded through its media contract (workflow/media_output.h, workflow/image_output.h).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

#include "base/error.h"
#include "generate/model_impl.h"
#include "workflow/image_output.h"
#include "workflow/input_specs.h"
#include "workflow/interpreter.h"
#include "workflow/media_output.h"

namespace ogai {
namespace {

constexpr int kMaxImagesPerRequest = 8;  // the reference runtime's bound

const generate::MediaWorkflow& media_of(const Model::Impl& impl, const char* kind, const char* what) {
  if (!impl.media_workflow || impl.media_workflow->kind != kind) {
    const std::string is = impl.media_workflow ? impl.media_workflow->kind + " package"
                           : impl.workflow     ? "workflow package that emits tokens"
                                               : "text-generation package";
    fail(ErrorCode::kUnsupported, "model", "{} needs a {} package; this is a {}", what, kind, is);
  }
  return *impl.media_workflow;
}

// The input with runtime role `role`, or nullptr.
const std::pair<std::string, metadata::WorkflowInput>* role_input(const metadata::Workflow& wf, const std::string& role) {
  for (const auto& entry : wf.inputs)
    if (entry.second.role.kind == metadata::InputRole::Kind::kRuntime && entry.second.role.role == role &&
        entry.second.source.kind == metadata::InputSource::Kind::kRequest)
      return &entry;
  return nullptr;
}

// `value` repeated over the input's contract shape (symbolic dimensions 1), as JSON.
nlohmann::json filled(const metadata::TensorContract& c, std::size_t axis, const nlohmann::json& value) {
  if (axis >= static_cast<std::size_t>(c.rank)) return value;
  const auto& dim = c.shape ? (*c.shape)[axis] : metadata::ShapeDim{};
  nlohmann::json row = nlohmann::json::array();
  for (std::int64_t i = 0; i < (dim.is_fixed() ? dim.value : 1); ++i) row.push_back(filled(c, axis + 1, value));
  return row;
}

void set_role(const metadata::Workflow& wf, const std::string& role, std::int64_t value, const char* field,
              workflow::RunRequest& r) {
  const auto* input = role_input(wf, role);
  if (!input) fail(ErrorCode::kInvalidArgument, field, "the package declares no {} role to take it", role);
  workflow::add_input_tensors(wf, {input->first + "=" + filled(input->second.contract, 0, value).dump()}, r);
}

// The data chunk of a WAV (RIFF chunks walked from the header).
std::vector<std::uint8_t> data_chunk(const std::vector<std::uint8_t>& wav) {
  std::size_t at = 12;
  while (at + 8 <= wav.size()) {
    std::uint32_t size = 0;
    std::memcpy(&size, &wav[at + 4], 4);
    const std::size_t end = std::min(wav.size(), at + 8 + static_cast<std::size_t>(size));
    if (std::memcmp(&wav[at], "data", 4) == 0) return {wav.begin() + static_cast<std::ptrdiff_t>(at + 8), wav.begin() + static_cast<std::ptrdiff_t>(end)};
    at = at + 8 + size + (size & 1);
  }
  fail(ErrorCode::kInternal, "speech", "the encoded WAV has no data chunk");
}

}  // namespace

SpeechAudio Model::synthesize_speech(const SpeechRequest& request) const {
  const Impl& impl = *impl_;
  const auto& media = media_of(impl, "speech", "speech synthesis");
  const auto& wf = impl.workflow->program.workflow();
  const auto& assembly = media.assembly->processor;
  const std::vector<TokenId> ids = impl.text().encode(assembly.assemble(request.input, request.instructions), true);
  assembly.check_input_tokens(ids.size(), "input");
  const std::int64_t units = assembly.output_units(request.max_output_units, "max_output_units");
  workflow::RunRequest r;
  for (const auto& [name, tensor] : impl.workflow->inputs) r.tensors.emplace(name, ort::Tensor::copy_of(tensor));
  r.max_new_tokens = assembly.max_new_tokens(units);
  const auto rows = assembly.token_rows(ids);
  if (rows.size() == 1) {
    r.prompt_tokens = rows[0];
  } else {
    const auto* prompt = role_input(wf, "prompt_tokens");
    if (!prompt) fail(ErrorCode::kInvalidPackage, "pipeline.workflow.inputs", "no prompt_tokens input takes the guidance rows");
    workflow::add_input_tensors(wf, {prompt->first + "=" + nlohmann::json(rows).dump()}, r);
  }
  const workflow::RunResult result = workflow::run(impl.workflow->program, std::move(r));
  const ort::Tensor* audio = result.first(media.output);
  if (!audio) fail(ErrorCode::kRuntime, "outputs." + media.output, "the workflow emitted no audio");
  SpeechAudio out;
  out.wav = std::move(workflow::encode_wav_output(wf, media.output, *audio).at(0));
  out.pcm = data_chunk(out.wav);
  const auto& contract = *metadata::find_named(wf.outputs, media.output)->media;
  out.sample_rate = static_cast<int>(*contract.sample_rate_hz);
  out.channels = static_cast<int>(*contract.channels);
  return out;
}

std::vector<std::vector<std::uint8_t>> Model::generate_images(const ImageRequest& request) const {
  const Impl& impl = *impl_;
  const auto& media = media_of(impl, "image", "image generation");
  const auto& wf = impl.workflow->program.workflow();
  if (request.n < 1 || request.n > kMaxImagesPerRequest)
    fail(ErrorCode::kInvalidArgument, "n", "{} is not in 1..{}", request.n, kMaxImagesPerRequest);
  std::vector<TokenId> ids = request.prompt_ids ? *request.prompt_ids : impl.text().encode(request.prompt, true);
  if (ids.empty()) fail(ErrorCode::kInvalidArgument, "prompt", "is empty");
  if (!role_input(wf, "prompt_tokens"))
    fail(ErrorCode::kUnsupported, "prompt", "the package declares no prompt_tokens input to take a prompt");
  if (request.seed && !role_input(wf, "seed"))
    fail(ErrorCode::kInvalidArgument, "seed", "the package declares no seed role; its images do not depend on a seed");
  if (request.steps && !role_input(wf, "max_iterations"))
    fail(ErrorCode::kInvalidArgument, "steps", "the package declares no max_iterations role to take a step count");
  if ((request.width || request.height) && (!role_input(wf, "width") || !role_input(wf, "height")))
    fail(ErrorCode::kInvalidArgument, "size", "the package declares no width and height roles; its size is fixed");
  if ((request.width && *request.width < 1) || (request.height && *request.height < 1))
    fail(ErrorCode::kInvalidArgument, "size", "width and height must be at least 1");
  std::vector<std::string> specs;
  for (const auto& [name, json] : request.inputs) {
    const auto first = json.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || json[first] == '@')  // never a file on this machine
      fail(ErrorCode::kInvalidArgument, "inputs." + name, "must be a JSON array or scalar");
    specs.push_back(name + "=" + json);
  }
  std::vector<std::vector<std::uint8_t>> pngs;
  for (int i = 0; i < request.n; ++i) {
    workflow::RunRequest r;
    for (const auto& [name, tensor] : impl.workflow->inputs) r.tensors.emplace(name, ort::Tensor::copy_of(tensor));
    workflow::add_input_tensors(wf, specs, r);
    r.prompt_tokens = ids;
    if (request.seed) r.seed = *request.seed + i;
    if (request.steps) r.max_new_tokens = *request.steps;
    if (request.width) set_role(wf, "width", *request.width, "size", r);
    if (request.height) set_role(wf, "height", *request.height, "size", r);
    const workflow::RunResult result = workflow::run(impl.workflow->program, std::move(r));
    const ort::Tensor* image = result.first(media.output);
    if (!image) fail(ErrorCode::kRuntime, "outputs." + media.output, "the workflow emitted no image");
    for (auto& png : workflow::encode_png_output(wf, media.output, *image)) pngs.push_back(std::move(png));
  }
  return pngs;
}

}  // namespace ogai
