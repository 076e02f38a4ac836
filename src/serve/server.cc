// Server lifecycle (bind, run, stop), the routes other than generation, and the answers to errors
// the transport detects itself (malformed request, body too large, too many connections).
#include "serve/server.h"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <ctime>

#include "base/error.h"
#include "base/log.h"
#include "sampling/sampling_params.h"
#include "serve/engine/background_priority.h"
#include "serve/ops/auth.h"
#include "serve/route_table.h"
#include "serve/server_impl.h"
#include "serve/webui/chat_page.h"

namespace ogai::serve {
namespace {

constexpr int kIoThreads = 2;     // every connection's reads and writes
constexpr int kRouteThreads = 4;  // parsing, templates, tokenizing, encoding answers
constexpr std::size_t kBulkBodyBytes = 256 << 10;  // bodies this large take the bulk lane

std::string default_model_name(const Model& model) {
  std::filesystem::path package = model.info().package;
  std::string name = package.filename().string();
  if (name.empty()) name = package.parent_path().filename().string();
  return name.empty() ? "ogai" : name;
}

void check_seconds(double v, const char* name) {
  if (!(v > 0) || v > 86400) fail(ErrorCode::kInvalidArgument, name, "{} is not in (0, 86400] seconds", v);
}

// The server's sampling defaults (--temperature, ...) in their ranges, checked once at start.
void check_sampling_defaults(const SamplingOptions& d) {
  sampling::SamplingParams p;
  p.temperature = d.temperature.value_or(1.0f);
  p.top_k = d.top_k.value_or(0);
  p.top_p = d.top_p.value_or(1.0f);
  p.min_p = d.min_p.value_or(0.0f);
  p.typical_p = d.typical_p.value_or(1.0f);
  p.repetition_penalty = d.repetition_penalty.value_or(1.0f);
  p.frequency_penalty = d.frequency_penalty.value_or(0.0f);
  p.presence_penalty = d.presence_penalty.value_or(0.0f);
  p.validate("");
}

ServerOptions checked(ServerOptions o) {
  check_options(o);
  return o;
}

// The drafter and --draft-tokens must be ones the package can run: one speculative token of a
// one-token prompt raises the model's own error (naming the field) at startup, not per request.
void check_speculative(const Model& model, const SpeculativeOptions& speculative) {
  if (speculative.drafter == SpeculativeOptions::Drafter::kNone) return;
  GenerationOptions probe;
  probe.max_new_tokens = 1;
  probe.speculative = speculative;
  const std::int32_t token = 0;
  model.generate(std::span<const std::int32_t>(&token, 1), probe);
}

std::chrono::milliseconds millis(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000)));
}

http::Limits limits_of(const ServerOptions& o) {
  http::Limits l;
  l.max_connections = static_cast<std::size_t>(o.max_connections);
  l.max_connections_per_peer = static_cast<std::size_t>(o.max_connections_per_peer);
  l.max_body_bytes = o.max_body_bytes;
  l.idle_timeout = millis(o.idle_timeout_s);
  l.header_timeout = millis(o.header_timeout_s);
  l.body_timeout = millis(o.body_timeout_s);
  return l;
}

}  // namespace

void check_options(const ServerOptions& o) {
  if (o.port < 0 || o.port > 65535) fail(ErrorCode::kInvalidArgument, "port", "{} is not in [0, 65535]", o.port);
  if (o.max_concurrent < 1 || o.max_concurrent > kMaxConcurrentLimit)
    fail(ErrorCode::kInvalidArgument, "max_concurrent", "{} is not in [1, {}]", o.max_concurrent, kMaxConcurrentLimit);
  if (o.queue < 0 || o.queue > kQueueLimit)
    fail(ErrorCode::kInvalidArgument, "queue", "{} is not in [0, {}]", o.queue, kQueueLimit);
  if (o.max_body_bytes == 0) fail(ErrorCode::kInvalidArgument, "max_body_bytes", "must be at least 1");
  if (o.max_connections < 1 || o.max_connections > kMaxConnectionsLimit)
    fail(ErrorCode::kInvalidArgument, "max_connections", "{} is not in [1, {}]", o.max_connections,
         kMaxConnectionsLimit);
  if (o.max_connections_per_peer < 0 || o.max_connections_per_peer > kMaxConnectionsLimit)
    fail(ErrorCode::kInvalidArgument, "max_connections_per_peer", "{} is not in [0, {}]", o.max_connections_per_peer,
         kMaxConnectionsLimit);
  check_seconds(o.idle_timeout_s, "idle_timeout");
  check_seconds(o.header_timeout_s, "header_timeout");
  check_seconds(o.body_timeout_s, "body_timeout");
  if (o.grammar.threads < 1 || o.grammar.threads > 64)
    fail(ErrorCode::kInvalidArgument, "grammar_threads", "{} is not in [1, 64]", o.grammar.threads);
  if (o.grammar.queue < 0 || o.grammar.queue > kQueueLimit)
    fail(ErrorCode::kInvalidArgument, "grammar_queue", "{} is not in [0, {}]", o.grammar.queue, kQueueLimit);
  if (!(o.grammar.seconds >= 0) || o.grammar.seconds > 86400)
    fail(ErrorCode::kInvalidArgument, "grammar_timeout", "{} is not in [0, 86400] seconds", o.grammar.seconds);
  if (o.max_stop_strings < 1 || o.max_stop_bytes < 1)
    fail(ErrorCode::kInvalidArgument, "max_stop_strings", "the stop budgets must be at least 1");
  if (o.max_media_parts < 1 || o.max_media_bytes < 1)
    fail(ErrorCode::kInvalidArgument, "max_media_parts", "the media budgets must be at least 1");
  if (o.allow_private_media_urls && !o.allow_media_urls)
    fail(ErrorCode::kInvalidArgument, "allow_private_media_urls",
         "--allow-private-media-urls widens --allow-media-urls, which is not given (no URL is fetched without it)");
  if (!(o.media_url_timeout > 0) || o.media_url_timeout > 600)
    fail(ErrorCode::kInvalidArgument, "media_url_timeout", "{} is not in (0, 600] seconds", o.media_url_timeout);
  if (o.grammar.max_bytes < 1) fail(ErrorCode::kInvalidArgument, "max_grammar_bytes", "must be at least 1");
  if (o.surface.max_tokens_default && *o.surface.max_tokens_default < 1)
    fail(ErrorCode::kInvalidArgument, "max_tokens_default", "{} must be at least 1", *o.surface.max_tokens_default);
  check_sampling_defaults(o.surface.sampling_defaults);
}

http::Response error_response(const ApiError& error) {
  http::Response r = text_response(to_text(error_json(error)));
  r.status = error.status;
  if (error.status == 429) r.fields.emplace_back("Retry-After", "1");
  return r;
}

namespace {

bool is_messages_path(const std::string& path) {
  const std::string routed = routed_path(path);
  return routed == "/v1/messages" || routed.starts_with("/v1/messages/");
}

}  // namespace

http::Response error_response(const ApiError& error, const http::Request& request) {
  if (routed_path(request.path).starts_with("/v1/responses")) return error_response(responses_error_names(error));
  if (!is_messages_path(request.path)) return error_response(error);
  http::Response r = error_response(error);
  r.body = to_text(messages_error_json(with_messages_names(error)));
  return r;
}

Server::Impl::Impl(std::shared_ptr<const Model> m, ServerOptions o)
    : model(std::move(m)),
      options(checked(std::move(o))),
      responses_store(ResponsesStore::kMaxResponses, options.responses_store_bytes),
      scheduler(model, options.max_concurrent, options.queue, options.engine),
      gate(options.surface),
      http(limits_of(options), {[this](std::shared_ptr<http::Exchange> e) { route(std::move(e)); },
                                [this](const http::Failure& f) { return failure_response(f); },
                                [this](const std::string& path, int status) {
                                  metrics.count_request(endpoint_label(path), status);
                                },
                                [this]() -> const std::vector<http::Field>& { return common_fields; }}),
      routes(kRouteThreads), grammars(options.grammar) {
  check_speculative(*model, options.speculative);
  name = options.model_name.empty() ? default_model_name(*model) : options.model_name;
  names.push_back(name);
  for (const std::string& alias : options.model_aliases)
    if (alias.empty()) fail(ErrorCode::kInvalidArgument, "model_aliases", "an alias must not be empty");
    else if (!serves(alias)) names.push_back(alias);
  request_limits.fields = default_field_budgets(options.max_stop_strings, options.max_stop_bytes);
  request_limits.media.max_parts = options.max_media_parts;
  request_limits.media.max_bytes = options.max_media_bytes;
  request_limits.media.urls = {options.allow_media_urls, options.allow_private_media_urls,
                               static_cast<long>(options.media_url_timeout * 1000.0)};
  created = static_cast<std::int64_t>(std::time(nullptr));
}

// A step that throws must not end a pool thread (that would terminate the process): the error is
// logged, and the Exchange it held, dropped, answers 500 or ends its stream.
void Server::Impl::on_route_pool(std::function<void()> step) {
  boost::asio::post(routes, [step = std::move(step)] {
    try {
      step();
    } catch (const std::exception& e) {
      log(LogLevel::kError, "serve: a request step failed: {}", e.what());
    } catch (...) {
      log(LogLevel::kError, "serve: a request step failed");
    }
  });
}

void Server::Impl::on_request_lane(const std::shared_ptr<http::Exchange>& exchange, std::function<void()> step) {
  if (exchange->request().body.size() < kBulkBodyBytes) return on_route_pool(std::move(step));
  boost::asio::post(bulk, [exchange, step = std::move(step)] {
    lower_this_thread_priority();  // the streams' threads first (engine/background_priority.h)
    if (exchange->client_gone()) return;  // nobody waits for it
    try {
      step();
    } catch (const std::exception& e) {
      log(LogLevel::kError, "serve: a request step failed: {}", e.what());
    } catch (...) {
      log(LogLevel::kError, "serve: a request step failed");
    }
  });
}

void Server::Impl::route(std::shared_ptr<http::Exchange> exchange) {
  guarded_route(gate, exchange, [&] { answer_route(exchange); });
}

void Server::Impl::answer_route(const std::shared_ptr<http::Exchange>& exchange) {
  const http::Request& req = exchange->request();
  const std::optional<MatchedRoute> matched = match_route(*exchange, options.surface.webui);
  if (!matched) return;
  const Route* r = matched->route;
  const std::string& path = matched->path;
  const std::string label = r->label;
  if (label == "/health") {
    const bool stopping = scheduler.stopping();
    http::Response res = text_response(stopping ? R"({"status":"stopping"})" : R"({"status":"ok"})");
    if (stopping) res.status = 503;
    return exchange->respond(std::move(res));
  }
  if (label == "/ready") return exchange->respond(answer_ready());
  if (label == "/metrics") {
    std::string text = metrics.prometheus_text(scheduler.running(), scheduler.queued(), scheduler.engine_stats());
    write_store_metrics(text, responses_store.size(), responses_store.bytes(), responses_store.max_bytes());
    return exchange->respond(text_response(std::move(text), "text/plain; version=0.0.4; charset=utf-8"));
  }
  if (label == "/version") return exchange->respond(answer_version());
  if (label == "/tokenize" || label == "/detokenize")
    return on_request_lane(exchange, [this, label, exchange] { handle_utility(label, exchange); });
  if (label == "/v1/models") return exchange->respond(answer_models(""));
  if (label == "/v1/models/{id}")
    return exchange->respond(answer_models(percent_decoded(path.substr(std::strlen(r->path)))));
  if (label == "/v1/responses")
    return on_request_lane(exchange, [this, exchange] { handle_responses(exchange); });
  if (label == "/v1/responses/{id}") {
    try {
      return exchange->respond(stored_response(percent_decoded(path.substr(std::strlen(r->path))),
                                                 api_key_owner(req, options.surface.api_keys)));
    } catch (const ApiError& e) {
      return exchange->respond(error_response(e, req));
    }
  }
  if (label == "/v1/messages" || label == "/v1/messages/count_tokens") {
    const MessagesRoute which = label == "/v1/messages" ? MessagesRoute::kCreate : MessagesRoute::kCountTokens;
    return on_request_lane(exchange, [this, which, exchange] { handle_messages(which, exchange); });
  }
  if (label == "/v1/embeddings") return queue_embeddings(exchange);
  if (label == "/v1/audio/speech") return queue_media(MediaRoute::kSpeech, exchange);
  if (label == "/v1/images/generations") return queue_media(MediaRoute::kImages, exchange);
  if (label.starts_with("/v1/audio/")) {
    const bool translate = label == "/v1/audio/translations";
    return on_request_lane(exchange, [this, translate, exchange] { handle_transcription(translate, exchange); });
  }
  const Endpoint endpoint = label == "/v1/chat/completions" ? Endpoint::kChat : Endpoint::kCompletion;
  on_request_lane(exchange, [this, endpoint, exchange] {
    try {
      handle_generation(endpoint, exchange);
    } catch (const std::exception& e) {
      exchange->respond(error_response(internal_error(e.what())));
    }
  });
}

// `id` empty: the list.
http::Response Server::Impl::answer_models(const std::string& id) const {
  const std::int64_t context = model->info().context_length;
  if (id.empty()) return text_response(to_text(model_list_json(names, created, context)));
  if (!serves(id)) return error_response(model_not_found(id, name));
  return text_response(to_text(model_json(id, created, context)));
}

bool Server::Impl::serves(const std::string& id) const {
  return std::find(names.begin(), names.end(), id) != names.end();
}

http::Response Server::Impl::failure_response(const http::Failure& failure) const {
  return transport_failure_response(failure);
}

Server::Server(std::shared_ptr<const Model> model, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), std::move(options))) {}

Server::~Server() {
  stop();
  impl_->scheduler.join();
}

const std::string& Server::model_name() const { return impl_->name; }

int Server::bind() {
  impl_->port = impl_->http.bind(impl_->options.host, impl_->options.port);
  impl_->name_replica();
  return impl_->port;
}

void Server::run() {
  {
    std::lock_guard lock(impl_->lifecycle);
    if (impl_->stop_requested) return;
  }
  impl_->serving = true;
  impl_->http.run(kIoThreads);  // returns after stop(), once every connection has ended
  impl_->scheduler.shutdown();
  impl_->scheduler.join();
}

void Server::stop() {
  {
    std::lock_guard lock(impl_->lifecycle);
    if (impl_->stop_requested) return;
    impl_->stop_requested = true;
  }
  impl_->scheduler.shutdown();  // queued -> 503, running generations cancel at their next token
  impl_->http.stop();           // the listener and idle connections close now, busy ones after their answer
}

}  // namespace ogai::serve
