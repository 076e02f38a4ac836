// POST /v1/audio/transcriptions for a transcription package (generate/transcribe.h: a CTC
// profile, docs/metadata.md): the parsed form's audio file goes to generate::transcribe, and the
// text is answered in the asked response_format (transcript_render.h), one segment spanning the
// audio. Translations are refused naming the route's task (a CTC model transcribes only);
// `language` and `prompt` are accepted and not read (the model has no conditioning). Runs the
// workflow on the calling thread (the route pool). Throws ApiError / ogai::Error as the route maps.
#pragma once

#include "ogai/model.h"
#include "serve/common/api_request.h"
#include "serve/http/http_server.h"

namespace ogai::serve {

http::Response ctc_transcription_response(const Model& model, const ApiRequest& request);

}  // namespace ogai::serve
