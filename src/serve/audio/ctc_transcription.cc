#include "serve/audio/ctc_transcription.h"

#include "generate/transcribe.h"
#include "serve/audio/transcript_render.h"
#include "serve/audio/transcription_request.h"
#include "serve/common/api_error.h"

namespace ogai::serve {
namespace {

const MediaInput& audio_part(const ApiRequest& request) {
  for (const ChatMessage& m : request.messages)
    for (const ContentPart& p : m.parts)
      if (p.kind == ContentPart::Kind::kAudio) return p.media;
  throw invalid_request("file", "file: required (the audio file, as a multipart file part)");
}

}  // namespace

http::Response ctc_transcription_response(const Model& model, const ApiRequest& request) {
  const TranscriptionState& state = *request.transcription;
  if (state.translate)
    throw unsupported("model", "model: this package transcribes with a CTC profile ('" +
                                   generate::transcription_profile(model) + "'); it does not translate");
  const MediaInput& audio = audio_part(request);
  Transcript t;
  t.task = "transcribe";
  t.language = state.language;
  t.duration = state.duration;
  t.text = generate::transcribe(model, audio.bytes);
  t.segments.push_back({0, state.duration, t.text, {}, 0});
  RenderedTranscript rendered = render_transcript(t, state.format);
  http::Response res;
  res.content_type = std::move(rendered.content_type);
  res.body = std::move(rendered.body);
  return res;
}

}  // namespace ogai::serve
