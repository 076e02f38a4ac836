// POST /v1/audio/transcriptions and /v1/audio/translations (transcription_request.h): the
// multipart form becomes a chat request whose user turn holds the audio, admitted like a chat
// completion (the package's chat template places the audio; its prompt expansion and encoder run
// in the generate stage), and answered whole in the asked response_format (transcript_render.h).
// An encoder-decoder package (Whisper) is transcribed window by window instead (whisper_route.cc).
// A package that takes no audio answers 400 naming `file`. A transcription package (a CTC profile)
// is answered by its profile's decoder instead (ctc_transcription.h).
#include <string>

#include "generate/transcribe.h"
#include "serve/audio/ctc_transcription.h"
#include "serve/audio/transcript_render.h"
#include "serve/audio/transcription_request.h"
#include "serve/common/prompt.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

std::string trimmed(const std::string& s) {
  const std::size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(" \t\r\n") - begin + 1);
}

}  // namespace

void Server::Impl::handle_transcription(bool translate, const std::shared_ptr<http::Exchange>& exchange) {
  try {
    const http::Request& req = exchange->request();
    ApiRequest request = parse_transcription_request(req.header("content-type"), req.body, translate, request_limits);
    apply_surface(request, *exchange);
    if (!serves(request.model)) throw model_not_found(request.model, name);
    if (!generate::transcription_profile(*model).empty()) {  // a CTC package: its profile decodes (ctc_transcription.h)
      exchange->respond(ctc_transcription_response(*model, request));
      return;
    }
    if (model->info().encoder_decoder) {  // Whisper: its own decodes (whisper_transcriber.h)
      exchange->respond(whisper_transcription(std::move(request)));
      return;
    }
    admit_and_answer(exchange, std::move(request));
  } catch (const ApiError& e) {
    exchange->respond(error_response(e, exchange->request()));
  } catch (const Error& e) {
    exchange->respond(error_response(from_engine_error(e, Endpoint::kChat), exchange->request()));
  }
}

void Server::Impl::answer_transcription(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange) {
  job->channel->when_ready([this, job, exchange] { respond_from_pool(job, exchange, &Impl::transcription_response); });
}

// One segment spanning the audio until the engine reports timestamps (docs/serving.md).
http::Response Server::Impl::transcription_response(Job& job) {
  GenerationChannel::Update end = job.channel->poll();
  if (end.error) throw *end.error;
  const TranscriptionState& state = *job.request.transcription;
  std::string text = end.result->text;
  if (const ChatPrompt* p = parsed_prompt(job.request)) text = parse_chat_reply(*p, text).content;
  Transcript t;
  t.task = state.translate ? "translate" : "transcribe";
  t.language = state.translate ? "english" : state.language;
  t.duration = state.duration;
  t.temperature = job.request.options.sampling.temperature.value_or(0.0f);
  t.text = trimmed(text);
  t.segments.push_back({0, state.duration, t.text, {end.result->ids.begin(), end.result->ids.end()}, 0});
  RenderedTranscript rendered = render_transcript(t, state.format);
  http::Response res;
  res.content_type = std::move(rendered.content_type);
  res.body = std::move(rendered.body);
  return res;
}

}  // namespace ogai::serve
