#include "generate/encoder_input.h"

#include "base/error.h"

namespace ogai::generate {
namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

const MediaInput& the_clip(const std::vector<MediaInput>& media) {
  const MediaInput* clip = nullptr;
  for (std::size_t i = 0; i < media.size(); ++i) {
    const std::string at = "media[" + std::to_string(i) + "]";
    if (media[i].kind != MediaInput::Kind::kAudio)
      fail(ErrorCode::kUnsupported, at, "this package transcribes audio; an image ({}) is not an input it takes",
           media[i].origin.empty() ? "no origin" : media[i].origin);
    if (clip)
      fail(ErrorCode::kUnsupported, at, "this package's encoder takes one audio clip per request; {} were given",
           media.size());
    clip = &media[i];
  }
  if (!clip)
    fail(ErrorCode::kInvalidArgument, "media", "this package transcribes audio: give one audio input (the CLI's "
         "--audio FILE; GenerationOptions::media)");
  return *clip;
}

}  // namespace

EncoderInput::EncoderInput(const EncoderInputConfig& config)
    : decoder_start_(config.decoder_start), forced_(config.forced_ids), limits_(config.limits) {
  if (!config.audio_program) return;
  program_ = media::audio::parse_audio_program(*config.audio_program, "preprocessing.audio");
  const auto& outputs = program_->outputs();
  while (output_ < outputs.size() && outputs[output_].name != config.features_value) ++output_;
  if (output_ == outputs.size())
    fail(ErrorCode::kInvalidPackage, "preprocessing.audio.outputs", "no output is named '{}', the value the encoder "
         "reads", config.features_value);
}

ort::Tensor EncoderInput::features(const std::vector<MediaInput>& media, const ort::PortInfo& port) const {
  if (!program_) fail(ErrorCode::kUnsupported, "media[0]", "this package's encoder reads source text, not media");
  const MediaInput& clip = the_clip(media);
  const std::string name = clip.origin.empty() ? "media[0]" : clip.origin;
  auto bytes = std::span(reinterpret_cast<const std::uint8_t*>(clip.bytes.data()), clip.bytes.size());
  auto produced = program_->run(bytes, name, limits_);
  media::audio::AudioTensor& t = produced.at(output_);
  bool fits = !t.integer && t.shape.size() == port.shape.size() && !t.shape.empty() && t.shape[0] == 1;
  for (std::size_t d = 1; fits && d < t.shape.size(); ++d) fits = port.shape[d] < 0 || port.shape[d] == t.shape[d];
  if (!fits)
    fail(ErrorCode::kInvalidPackage, "preprocessing.audio", "the program's '{}' is {} {}; the encoder's '{}' takes "
         "float32 {}", t.name, t.integer ? "int64" : "float32", shape_text(t.shape), port.name, shape_text(port.shape));
  return ort::Tensor::copy_of(std::span<const float>(t.f32), t.shape);
}

std::vector<TokenId> EncoderInput::decoder_prompt(std::span<const TokenId> prompt) const {
  if (!program_) {  // a source-id encoder: the prompt went to the encoder
    if (!decoder_start_)
      fail(ErrorCode::kInvalidPackage, "package.tokenizer.special_tokens.decoder_start", "missing: the decoder's "
           "first token is needed to translate");
    return {*decoder_start_};
  }
  // A prompt holding the start id (first, or after Whisper's <|startofprev|> context) is whole.
  if (decoder_start_ && std::find(prompt.begin(), prompt.end(), *decoder_start_) != prompt.end())
    return {prompt.begin(), prompt.end()};
  std::vector<TokenId> ids = forced_;
  ids.insert(ids.end(), prompt.begin(), prompt.end());
  if (ids.empty())
    fail(ErrorCode::kInvalidPackage, "package.tokenizer.special_tokens.decoder_start", "missing, and the prompt is "
         "empty: the decoder has no first token");
  return ids;
}

}  // namespace ogai::generate
