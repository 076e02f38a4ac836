// A transcription (or translation into English) by a Whisper package, as OpenAI whisper's and
// Hugging Face's pipelines drive the decoder, one decode at a time through `decode` (the server
// admits each to its engine):
//   1. the audio is decoded to 16 kHz mono (media/audio); up to 30 s it is fed as sent, longer
//      audio in 30 s windows (each a float WAV of its samples), bounded by DecodeLimits (the
//      server's audio budget: duration and decoded bytes);
//   2. language: the form's, else detected on the first window: one decoder step after
//      <|startoftranscript|>, greedy over the language tokens only (transformers'
//      detect_language);
//   3. prompt per window: [<|startofprev|> + the form's prompt (" " + trimmed text, its last
//      context/2 - 1 tokens; first window only, HF's "first-segment")] <|startoftranscript|>
//      <|LANG|> <|transcribe|>|<|translate|>, then <|notimestamps|> unless `timestamps`;
//   4. with `timestamps` the decoder follows Whisper's timestamp rules (GenerationOptions::
//      timestamp_rules) and each window splits into segments (whisper_segments.h); the next
//      window starts at the last complete segment's end, or after the window. Without, windows
//      follow one another and each is one segment.
// The prompt tokens are never part of the text. Errors: ApiError 400 naming `prompt` (no
// <|startofprev|>), `response_format` (timestamps without <|notimestamps|>), `language`; the
// decoder's and audio decoder's ogai::Error pass through. Thread-safe (state is per call).
#pragma once

#include <functional>
#include <vector>

#include "media/audio/decode.h"
#include "ogai/model.h"
#include "serve/audio/transcript_render.h"

namespace ogai::serve {

using WhisperDecode = std::function<GenerationResult(std::vector<TokenId> prompt, GenerationOptions options)>;

struct WhisperJob {
  const TranscriptionState* state = nullptr;  // the form (language, prompt, route)
  MediaInput audio;                           // the uploaded file
  GenerationOptions options;                  // the form's sampling (temperature)
  bool timestamps = false;                    // segments asked (verbose_json, srt, vtt)
  media::audio::DecodeLimits limits;
};

Transcript transcribe_whisper(const Model& model, const WhisperJob& job, const WhisperDecode& decode);

}  // namespace ogai::serve
