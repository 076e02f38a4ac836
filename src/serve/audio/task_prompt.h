// A transcription request for an encoder-decoder package (Whisper form, ModelInfo::encoder_decoder):
// the chat-shaped request parse_transcription_request builds (one user turn: the audio and an
// instruction) becomes the decoder's task prompt and the audio as the request's one media input.
//
// The task prompt is Whisper's: <|startoftranscript|> <|LANG|> <|transcribe|> or <|translate|>
// <|notimestamps|>, each a single token of the package's tokenizer. LANG is the form's `language`
// (ISO-639-1, checked to be one token: `<|xx|>`), else English (no language detection here).
// A tokenizer without <|startoftranscript|> is refused naming `model`. The form's `prompt`
// (Whisper's previous-text context) is refused by name: not implemented. Throws ApiError 400.
// Pure apart from the model's tokenizer (const, thread-safe).
#pragma once

#include "ogai/model.h"
#include "serve/common/api_request.h"

namespace ogai::serve {

void to_task_prompt(const Model& model, ApiRequest& request);

}  // namespace ogai::serve
