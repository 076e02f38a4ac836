// Requests and results of the packages whose workflow emits media instead of tokens
// (Model::synthesize_speech, Model::generate_images; ModelInfo::media_kind says which a package
// serves). Plain value types.
//   speech: a package with a text-assembly@1 component (its artifact assembles `input` and
//           `instructions` into the prompt text) and exactly one buffered pcm_s16_le WAV output;
//   image:  a package with one `role: image` output (its value_range maps it to 8-bit PNG).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ogai/token_id.h"

namespace ogai {

struct SpeechRequest {
  std::string input;         // the text to speak
  std::string instructions;  // the text-assembly's `instructions` field (style, voice description)
  // The workflow's output budget, 1..the processor's max_output_units (unset: that maximum).
  std::optional<std::int64_t> max_output_units;
};

struct SpeechAudio {
  std::vector<std::uint8_t> wav;  // a complete WAV file (RIFF/WAVE, 16-bit PCM)
  std::vector<std::uint8_t> pcm;  // its data chunk: interleaved signed 16-bit little-endian samples
  int sample_rate = 0, channels = 0;
};

struct ImageRequest {
  std::string prompt;                              // tokenized by the package's tokenizer
  std::optional<std::vector<TokenId>> prompt_ids;  // instead of `prompt` (a package without a tokenizer)
  int n = 1;                                       // images, 1..8; image i runs with seed + i
  // Each fills the workflow input with that runtime role; a value for a role the package does not
  // declare is refused naming the field ("seed", "steps", "size").
  std::optional<std::int64_t> seed, steps, width, height;
  // Application inputs the package requires (e.g. a diffusion's noise): NAME -> a JSON nested
  // array or scalar, typed by that input's contract.
  std::map<std::string, std::string> inputs;
};

}  // namespace ogai
