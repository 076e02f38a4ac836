// The transcription routes for an encoder-decoder (Whisper) package: the form's audio is
// transcribed by whisper_transcriber.h on the calling thread (the route pool), each of its decodes
// (language detection, one per 30 s window) admitted to the engine like any request and waited
// for, so concurrent transcriptions share the engine's batches. The answer is rendered in the asked
// response_format (transcript_render.h) with the segments' times.
#include <utility>

#include "serve/audio/transcription_request.h"
#include "serve/audio/whisper_transcriber.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

// The request's one audio part (the form's file).
MediaInput take_audio(ApiRequest& request) {
  for (ChatMessage& m : request.messages)
    for (ContentPart& p : m.parts)
      if (p.kind == ContentPart::Kind::kAudio) return std::move(p.media);
  throw invalid_request("file", "file: required (the audio to transcribe)");
}

}  // namespace

http::Response Server::Impl::whisper_transcription(ApiRequest request) {
  const TranscriptionState& state = *request.transcription;
  WhisperJob job;
  job.state = &state;
  job.audio = take_audio(request);
  job.options = request.options;
  job.options.media.clear();
  job.limits = {options.max_audio_seconds, options.max_decoded_bytes};
  job.timestamps = state.format == TranscriptFormat::kVerboseJson || state.format == TranscriptFormat::kSrt ||
                   state.format == TranscriptFormat::kVtt;
  const ApiRequest base = [&] {
    ApiRequest r = request;
    r.messages.clear();
    r.media_images = 0;
    r.endpoint = Endpoint::kCompletion;
    r.prompt_text.reset();
    return r;
  }();
  const WhisperDecode decode = [&](std::vector<TokenId> prompt, GenerationOptions options) {
    ApiRequest r = base;
    r.options = std::move(options);
    r.prompt_ids = prompt;
    std::shared_ptr<Job> admitted = admit(std::move(r), std::move(prompt));
    GenerationChannel::Update end = admitted->channel->wait_finished();
    admitted->release_handles();
    if (end.error) throw *end.error;
    return std::move(*end.result);
  };
  const Transcript t = transcribe_whisper(*model, job, decode);
  RenderedTranscript rendered = render_transcript(t, state.format);
  http::Response res;
  res.content_type = std::move(rendered.content_type);
  res.body = std::move(rendered.body);
  return res;
}

}  // namespace ogai::serve
