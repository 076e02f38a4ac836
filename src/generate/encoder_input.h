// What one request of an encoder-decoder package feeds its encoder and its decoder.
//
// Audio encoders (Whisper): the request carries exactly one audio MediaInput (GenerationOptions::
// media); the package's preprocessing.audio program (media/audio/program.h) turns its bytes into
// the features the encoder reads (the program output the adapter step binds to the encoder's
// input), checked against the encoder's features port. The decoder's prompt is the package's
// forced ids (special_tokens decoder_start, then language, task and no_timestamps where declared:
// Whisper's <|startoftranscript|><|en|><|transcribe|><|notimestamps|>) when the caller's prompt is
// empty; a prompt that holds the decoder start id (first, or after Whisper's <|startofprev|> context)
// is taken as the whole task prompt (so a
// caller picks the language and task, e.g. "<|startoftranscript|><|fr|><|translate|>..."); any
// other prompt follows the forced ids as the transcript's forced beginning.
// Source-id encoders (translation): the caller's prompt ids are the source the encoder reads; the
// decoder starts from [decoder_start] alone; media are refused.
// Errors name what is wrong: `media[i]` for an image or a second clip, `media` when there is no
// audio, the program's own messages for bad audio. Immutable after construction; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "media/audio/decode.h"
#include "media/audio/program.h"
#include "ogai/media.h"
#include "ogai/token_id.h"
#include "ort/session.h"
#include "ort/tensor.h"

namespace ogai::generate {

struct EncoderInputConfig {
  std::optional<nlohmann::json> audio_program;  // preprocessing.audio, for audio encoders
  std::string features_value;                   // the program output (binding name) the encoder reads
  std::optional<TokenId> decoder_start;
  std::vector<TokenId> forced_ids;              // decoder_start first; empty for source-id encoders' rule
  media::audio::DecodeLimits limits;            // the clip's decoding budgets (LoadOptions::media_limits)
};

class EncoderInput {
 public:
  explicit EncoderInput(const EncoderInputConfig& config);

  bool takes_audio() const { return program_.has_value(); }
  // The features of the request's one audio clip, float32 [1, mels, frames] as `port` declares.
  ort::Tensor features(const std::vector<MediaInput>& media, const ort::PortInfo& port) const;
  // The decoder's prompt for the caller's prompt ids (the rules above).
  std::vector<TokenId> decoder_prompt(std::span<const TokenId> prompt) const;

 private:
  std::optional<media::audio::AudioProgram> program_;
  std::size_t output_ = 0;  // index of the features among the program's outputs
  std::optional<TokenId> decoder_start_;
  std::vector<TokenId> forced_;
  media::audio::DecodeLimits limits_;
};

}  // namespace ogai::generate
