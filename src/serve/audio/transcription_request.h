// POST /v1/audio/transcriptions and /v1/audio/translations (OpenAI's audio API): the multipart
// form read once into the request model: one user turn holding the audio file (an audio part,
// origin "file") and the instruction text (transcribe, or translate into English; the optional
// `prompt` as context; `language` as a hint), and the options.
//
// Fields: file (required; an audio file within --max-media-bytes: wav, mp3, flac, ogg by its
// Content-Type or file name), model (required), language (ISO-639-1, transcriptions only),
// prompt, temperature (0..1), response_format json (default) | text | srt | vtt | verbose_json,
// timestamp_granularities[] (segment only). Refused by name: stream true (not streamed here),
// word timestamps, other formats; other form fields are unknown fields (a warning, or 400 with
// --strict-requests). Each problem is an ApiError 400 naming the form field. Pure; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "serve/common/api_request.h"

namespace ogai::serve {

enum class TranscriptFormat { kJson, kText, kSrt, kVtt, kVerboseJson };

// What the answer needs besides the generation (ApiRequest::transcription).
struct TranscriptionState {
  bool translate = false;            // /v1/audio/translations: into English
  TranscriptFormat format = TranscriptFormat::kJson;
  std::string language;              // as asked ("" = not given); translations answer "english"
  double duration = 0;               // seconds, from a WAV header (0 when not known here)
  bool has_prompt = false;           // the form's `prompt` was given (non-empty)
  std::string prompt;                // its text (Whisper's previous-text context)
};

// `content_type`: the request's Content-Type header.
ApiRequest parse_transcription_request(std::string_view content_type, std::string_view body, bool translate,
                                       const JsonLimits& limits = {});

// The audio's length in seconds when `bytes` is a PCM WAV file with a readable header, else 0.
double wav_duration(std::string_view bytes);

}  // namespace ogai::serve
