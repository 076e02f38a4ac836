// POST /v1/audio/speech and POST /v1/images/generations (speech_request.h, image_request.h)
// for packages whose workflow emits media (ModelInfo::media_kind): the request is read on the
// media lane (Impl::media, one request at a time, apart from the route pool and the generation
// engine; at most --queue more wait, beyond that 429; draining or stopping: 503), lowered onto
// Model::synthesize_speech / generate_images, and answered whole: audio/wav or audio/pcm bytes,
// or {created, data: [{b64_json}]} of PNGs. Auth, CORS, request ids, the access log and the
// per-route metrics come from the gate and the transport, as for every route. A package of
// another kind answers 400 naming the route and the package's kind.
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include <ctime>

#include "base/log.h"
#include "serve/common/base64.h"
#include "serve/common/unknown_fields.h"
#include "serve/media_out/image_request.h"
#include "serve/media_out/speech_request.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

ApiError media_busy(int queue) {
  ApiError e;
  e.status = 429;
  e.type = "rate_limit_error";
  e.code = "queue_full";
  e.message = fmt::format("the server is busy: {} speech or image requests are waiting; retry later", queue);
  return e;
}

std::string package_kind(const ModelInfo& info) {
  if (!info.media_kind.empty()) return info.media_kind + " package";
  return info.runs_workflow ? "token-generating workflow package" : "text-generation package";
}

void check_kind(const ModelInfo& info, const char* kind, const char* route, const std::string& name) {
  if (info.media_kind == kind) return;
  throw invalid_request("model", fmt::format("{} needs a {} package; '{}' is a {}", route, kind, name,
                                             package_kind(info)),
                        "wrong_model_kind");
}

}  // namespace

void Server::Impl::queue_media(MediaRoute route, const std::shared_ptr<http::Exchange>& exchange) {
  if (scheduler.stopping() || scheduler.draining()) return exchange->respond(error_response(shutting_down()));
  if (media_pending.fetch_add(1) > options.queue) {
    media_pending.fetch_sub(1);
    return exchange->respond(error_response(media_busy(options.queue)));
  }
  boost::asio::post(media, [this, route, exchange] {
    try {
      if (!exchange->client_gone()) exchange->respond(answer_media(route, *exchange));
    } catch (const std::exception& e) {
      exchange->respond(error_response(internal_error(e.what())));
    }
    media_pending.fetch_sub(1);
  });
}

void Server::Impl::warn_unknown(const std::vector<std::string>& fields, const http::Exchange& exchange,
                                const char* route) const {
  if (fields.empty()) return;
  if (options.surface.strict_requests) throw unknown_fields_error(fields);
  log(LogLevel::kWarn, "serve: request {} ({}): ignoring unknown fields: {}", exchange.request_id(), route, joined(fields));
}

http::Response Server::Impl::answer_media(MediaRoute route, http::Exchange& exchange) {
  try {
    if (scheduler.stopping()) throw shutting_down();
    const std::string& body = exchange.request().body;
    http::Response res;
    if (route == MediaRoute::kSpeech) {
      SpeechHttpRequest request = parse_speech_request(body, request_limits);
      warn_unknown(request.unknown_fields, exchange, "POST /v1/audio/speech");
      if (!serves(request.model)) throw model_not_found(request.model, name);
      check_kind(model->info(), "speech", "POST /v1/audio/speech", name);
      SpeechAudio audio = model->synthesize_speech(request.speech);
      auto& bytes = request.pcm ? audio.pcm : audio.wav;
      res.content_type = request.pcm ? "audio/pcm" : "audio/wav";
      res.body.assign(bytes.begin(), bytes.end());
      if (request.pcm) {
        res.fields.emplace_back("x-ogai-sample-rate", std::to_string(audio.sample_rate));
        res.fields.emplace_back("x-ogai-channels", std::to_string(audio.channels));
      }
      return res;
    }
    ImageHttpRequest request = parse_image_request(body, request_limits);
    warn_unknown(request.unknown_fields, exchange, "POST /v1/images/generations");
    if (!serves(request.model)) throw model_not_found(request.model, name);
    check_kind(model->info(), "image", "POST /v1/images/generations", name);
    const auto pngs = model->generate_images(request.images);
    nlohmann::json data = nlohmann::json::array();
    for (const auto& png : pngs)
      data.push_back({{"b64_json", encode_base64(std::string_view(reinterpret_cast<const char*>(png.data()), png.size()))}});
    res.content_type = "application/json";
    res.body = nlohmann::json{{"created", static_cast<std::int64_t>(std::time(nullptr))}, {"data", std::move(data)}}.dump();
    return res;
  } catch (const ApiError& e) {
    return error_response(e, exchange.request());
  } catch (const Error& e) {
    return error_response(from_engine_error(e, Endpoint::kCompletion), exchange.request());
  }
}

}  // namespace ogai::serve
