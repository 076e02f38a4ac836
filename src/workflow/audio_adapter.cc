#include "workflow/audio_adapter.h"

#include "base/error.h"
#include "media/audio/program.h"
#include "media/media_limits.h"
#include "metadata/contract.h"
#include "workflow/audio_tensor.h"
#include "workflow/plan.h"
#include "workflow/text_assembly.h"

namespace ogai::workflow {
namespace {

namespace audio = media::audio;

// A produced tensor in its binding's declared dtype (float32 when none is declared).
ort::Tensor as_declared(const audio::AudioTensor& t, const audio::AudioOutputBinding& binding) {
  const auto dtype = metadata::canonical_dtype(binding.dtype).value_or(DataType::kFloat32);
  return audio_tensor_as(t, dtype, t.shape, "preprocessing.audio output '" + binding.name + "'");
}

struct BoundOutput {
  std::string role;  // the port's role
  std::size_t index;  // in the program's outputs
};

class AudioPreprocessAdapter final : public Adapter {
 public:
  AudioPreprocessAdapter(audio::AudioProgram program, std::string component, std::string input_role,
                         std::vector<BoundOutput> outputs, const media::MediaLimits& limits)
      : program_(std::move(program)), component_(std::move(component)), input_role_(std::move(input_role)),
        outputs_(std::move(outputs)), limits_(media::decode_limits(limits)), max_bytes_(limits.max_media_bytes) {}

  RoleOutputs run(const AdapterCall& call) const override {
    auto it = call.inputs.find(input_role_);
    if (it == call.inputs.end() || !it->second) fail(ErrorCode::kInvalidArgument, call.what, "the 'encoded' input is not bound");
    const auto value = call.input_values.find(input_role_);
    // Media errors name the value the step reads and the port it feeds.
    const std::string input_name = (value == call.input_values.end() ? std::string("encoded") : value->second) +
                                   " (input 'encoded' of component '" + component_ + "')";
    const ort::Tensor& encoded = *it->second;
    if (encoded.dtype() != DataType::kUint8 || encoded.shape().size() != 1)
      fail(ErrorCode::kInvalidArgument, input_name, "must be uint8 [bytes]; got {}{}", dtype_name(encoded.dtype()),
           ort::shape_string(encoded.shape()));
    const std::span<const std::uint8_t> bytes(static_cast<const std::uint8_t*>(encoded.raw_data()),
                                              static_cast<std::size_t>(encoded.shape()[0]));
    if (bytes.size() > max_bytes_)
      fail(ErrorCode::kInvalidArgument, input_name, "the audio file is {} bytes, over the limit of {} (--max-media-bytes)",
           bytes.size(), max_bytes_);
    auto produced = program_.run(bytes, input_name, limits_);
    RoleOutputs out;
    for (const auto& b : outputs_) out.emplace(b.role, as_declared(produced[b.index], program_.outputs()[b.index]));
    return out;
  }

 private:
  audio::AudioProgram program_;
  std::string component_, input_role_;
  std::vector<BoundOutput> outputs_;
  audio::DecodeLimits limits_;
  std::uint64_t max_bytes_ = 0;
};

// The one invoke step of `component` (V-PREPROC: a preprocessing adapter is invoked once).
const metadata::InvokeStep& the_invoke(const metadata::Workflow& wf, const AdapterSite& site) {
  const metadata::InvokeStep* found = nullptr;
  int count = 0;
  for_each_step(wf.steps, [&](const metadata::Step& step) {
    if (const auto* inv = std::get_if<metadata::InvokeStep>(&step.body); inv && inv->component == site.name)
      found = inv, ++count;
  });
  if (count != 1)
    fail(ErrorCode::kInvalidPackage, site.path, "a preprocessing adapter is invoked exactly once; '{}' is invoked {} times",
         site.name, count);
  return *found;
}

}  // namespace

std::unique_ptr<const Adapter> make_audio_preprocess_adapter(const AdapterSite& site) {
  const auto& pre = site.package.document.preprocessing;
  if (!pre.is_object() || !pre.contains("audio"))
    fail(ErrorCode::kInvalidPackage, site.path, "the audio preprocessing adapter '{}' needs a preprocessing.audio program",
         site.name);
  auto program = audio::parse_audio_program(pre["audio"], "preprocessing.audio");
  const auto& step = the_invoke(*site.package.document.workflow, site);
  if (!metadata::find_named(step.inputs, "encoded")) fail(ErrorCode::kInvalidPackage, site.path, "the audio preprocessing adapter takes its bytes on port 'encoded'");
  std::vector<BoundOutput> bound;
  std::vector<bool> used(program.outputs().size(), false);
  for (const auto& [port, value] : step.outputs) {
    std::size_t i = 0;
    while (i < program.outputs().size() && program.outputs()[i].name != value) ++i;
    if (i == program.outputs().size())
      fail(ErrorCode::kInvalidPackage, site.path + ".ports.outputs." + port,
           "the step binds this port to '{}', which no preprocessing.audio output names", value);
    used[i] = true;
    bound.push_back({adapter_role(site.component, port), i});
  }
  for (std::size_t i = 0; i < used.size(); ++i)
    if (!used[i] && !program.outputs()[i].optional)
      fail(ErrorCode::kInvalidPackage, "preprocessing.audio.outputs[" + std::to_string(i) + "]",
           "'{}' is bound to no output port of the adapter '{}'", program.outputs()[i].name, site.name);
  return std::make_unique<AudioPreprocessAdapter>(std::move(program), site.name, adapter_role(site.component, "encoded"),
                                                  std::move(bound), site.media_limits);
}

namespace {

class TextAssemblyAdapter final : public Adapter {
 public:
  explicit TextAssemblyAdapter(std::string name) : name_(std::move(name)) {}
  RoleOutputs run(const AdapterCall& call) const override {
    fail(ErrorCode::kUnsupported, call.what,
         "text-assembly adapter '{}' is an API-boundary contract: a speech route assembles the prompt before the "
         "workflow runs; a workflow step cannot invoke it", name_);
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<const Adapter> make_text_assembly_adapter(const AdapterSite& site) {
  find_text_assembly(site.package);  // loads and checks the processor artifact (and refuses two)
  return std::make_unique<TextAssemblyAdapter>(site.name);
}

}  // namespace ogai::workflow
