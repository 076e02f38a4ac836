// POST /v1/embeddings (embeddings_api.h for the shapes): read the request, tokenize text inputs
// (with the tokenizer's special tokens, as a completion prompt is), run Model::embed with the
// server's --pooling, answer. Requests run one at a time on their own thread (Impl::embeddings),
// apart from the route pool and the generation engine; at most --queue more wait, beyond that
// 429. Draining or stopping: 503. A package that cannot embed answers 400 (param "model") saying
// why; `dimensions` other than the vectors' width is a 400 (ogai does not truncate vectors).
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "base/log.h"
#include "serve/embeddings/embeddings_api.h"
#include "serve/server_impl.h"
#include "serve/common/unknown_fields.h"
#include "tokenizer/cancel.h"

namespace ogai::serve {
namespace {

ApiError embeddings_busy(int queue) {
  ApiError e;
  e.status = 429;
  e.type = "rate_limit_error";
  e.code = "queue_full";
  e.message = fmt::format("the server is busy: {} embedding requests are waiting; retry later", queue);
  return e;
}

ApiError wrong_dimensions(std::int64_t asked, std::size_t width) {
  return invalid_request("dimensions", fmt::format("dimensions is {}, but this model's embeddings have {} dimensions "
                                                   "(ogai does not shorten them); leave dimensions out or send {}",
                                                   asked, width, width));
}

// An engine error as the API reports it; an input's index stays in the message (input[3]: ...).
ApiError engine_error(const Error& e) {
  ApiError out = from_engine_error(e, Endpoint::kCompletion);
  if (e.where().starts_with("input[") && out.status == 400)
    out.message = without_absolute_paths(e.where() + ": " + e.message());
  return out;
}

ApiError client_left() {
  ApiError e = internal_error("the client left before its embeddings were computed");
  e.status = 499;
  return e;
}

}  // namespace

void Server::Impl::queue_embeddings(const std::shared_ptr<http::Exchange>& exchange) {
  if (scheduler.stopping() || scheduler.draining()) return exchange->respond(error_response(shutting_down()));
  if (embeddings_pending.fetch_add(1) > options.queue) {
    embeddings_pending.fetch_sub(1);
    return exchange->respond(error_response(embeddings_busy(options.queue)));
  }
  boost::asio::post(embeddings, [this, exchange] {
    try {
      if (!exchange->client_gone()) exchange->respond(answer_embeddings(*exchange));
    } catch (const std::exception& e) {
      exchange->respond(error_response(internal_error(e.what())));
    }
    embeddings_pending.fetch_sub(1);
  });
}

http::Response Server::Impl::answer_embeddings(http::Exchange& exchange) {
  try {
    if (scheduler.stopping()) throw shutting_down();
    EmbeddingsRequest request = parse_embeddings_request(exchange.request().body, request_limits);
    if (!request.unknown_fields.empty()) {
      if (options.surface.strict_requests) throw unknown_fields_error(request.unknown_fields);
      log(LogLevel::kWarn, "serve: request {} (POST /v1/embeddings): ignoring unknown fields: {}",
          exchange.request_id(), joined(request.unknown_fields));
    }
    if (!serves(request.model)) throw model_not_found(request.model, name);
    const ModelInfo& info = model->info();
    if (!info.embedding_unavailable.empty())
      throw unsupported("model", "this model cannot produce embeddings: " + info.embedding_unavailable);
    if (request.dimensions && info.embedding_width > 0 && *request.dimensions != info.embedding_width)
      throw wrong_dimensions(*request.dimensions, static_cast<std::size_t>(info.embedding_width));
    // A client that left stops the work at the next input it tokenizes or the next graph run
    // (issue 37 item 3): nobody waits for it.
    auto gone = [&exchange] { return exchange.client_gone(); };
    tokenizer::CancelScope cancel(gone);  // and inside a long input's encoding
    for (const std::string& text : request.texts) {
      if (gone()) throw client_left();
      request.ids.push_back(model->tokenize(text));
    }
    std::int64_t tokens = 0;
    for (const auto& ids : request.ids) tokens += static_cast<std::int64_t>(ids.size());
    const std::vector<std::vector<float>> vectors = model->embed(request.ids, options.embedding_pooling, true, gone);
    if (request.dimensions && !vectors.empty() && *request.dimensions != static_cast<std::int64_t>(vectors[0].size()))
      throw wrong_dimensions(*request.dimensions, vectors[0].size());
    http::Response r;
    r.content_type = "application/json";
    r.body = embeddings_response(vectors, request.base64, name, tokens);
    return r;
  } catch (const ApiError& e) {
    return error_response(e);
  } catch (const Error& e) {
    return error_response(engine_error(e));
  }
}

}  // namespace ogai::serve
