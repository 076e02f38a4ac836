// POST /v1/audio/speech's body (OpenAI's shape): {model, input, voice?, instructions?,
// response_format? wav | pcm (default wav), speed?, stream_format?, max_output_units?}.
//   voice   v1 packages declare no voices: absent, "" or "default" (the package's one voice);
//           any other is a 400 naming `voice` (never silently another voice);
//   speed   v1 declares no speed role: absent or 1 only, else 400 naming `speed`;
//   response_format mp3, opus, aac, flac: 400 naming it (ogai encodes WAV and raw PCM);
//   stream_format other than "audio": 400 (the audio is buffered);
//   max_output_units (the reference runtime's field): the text-assembly's output budget.
// Every error is an ApiError 400 naming the field. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ogai/media_generation.h"
#include "serve/common/json_limits.h"

namespace ogai::serve {

struct SpeechHttpRequest {
  std::string model;
  SpeechRequest speech;
  bool pcm = false;  // response_format pcm: the raw samples (audio/pcm), else a WAV (audio/wav)
  std::vector<std::string> unknown_fields;
};

SpeechHttpRequest parse_speech_request(std::string_view body, const JsonLimits& limits);

}  // namespace ogai::serve
