// Server::Impl: the server's state and its routes (internal to serve). The transport (src/serve/http/)
// hands every request to route() on an I/O thread; GET routes answer there at once, the generation
// routes move to the small route pool (parsing, templates, tokenizing, encoding answers), and no
// thread waits for a generation: answers are written when the GenerationChannel calls back.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <random>

#include "serve/common/api_request.h"
#include "serve/openai/api_response.h"
#include "serve/common/event_encoder.h"
#include "serve/engine/generation_channel.h"
#include "serve/engine/grammar_pool.h"
#include "serve/http/http_server.h"
#include "serve/engine/memory_return.h"
#include "serve/anthropic/messages_api.h"
#include "serve/anthropic/messages_request.h"
#include "serve/ops/metrics.h"
#include "serve/ops/request_gate.h"
#include "serve/responses/responses_api.h"
#include "serve/responses/responses_store.h"
#include "serve/engine/scheduler.h"
#include "serve/server.h"

namespace ogai::serve {

// One admitted generation (n choices), shared by the HTTP side that answers it and the engine's
// thread that runs it: choice i reports through channels[i] (`channel` = channels[0]).
struct Job {
  ResponseMeta meta;
  ApiRequest request;
  std::vector<std::int32_t> prompt;
  std::shared_ptr<GenerationChannel> channel;
  std::vector<std::shared_ptr<GenerationChannel>> channels;
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  std::mutex handles_mutex;  // handles are set after submission, read by cancel()
  std::optional<ResponsesMeta> responses;  // set for POST /v1/responses (before its answer is armed)
  std::optional<MessagesMeta> messages;    // set for POST /v1/messages (before its answer is armed)
  // The client went away: every choice ends at the engine's next step, queued or running.
  void cancel();
  // The answer is out: drops the handles, whose callbacks hold this Job (a cycle that would
  // otherwise keep every Job, its channels and results, alive forever).
  void release_handles();
};

struct Server::Impl {
  Impl(std::shared_ptr<const Model> m, ServerOptions o);

  // Routes (server.cc).
  void route(std::shared_ptr<http::Exchange> exchange);  // on an I/O thread: must not block
  void answer_route(const std::shared_ptr<http::Exchange>& exchange);
  http::Response answer_models(const std::string& id) const;
  http::Response failure_response(const http::Failure& failure) const;
  // GET /version, POST /tokenize and /detokenize (utility_routes.cc); the last two on the pool.
  http::Response answer_version() const;
  http::Response answer_tokenize(const std::string& body) const;
  http::Response answer_detokenize(const std::string& body) const;
  void handle_utility(const std::string& label, const std::shared_ptr<http::Exchange>& exchange);
  // Readiness and drain (readiness.cc).
  http::Response answer_ready() const;
  void name_replica();  // replica_id and common_fields, once the port is bound

  // Generation (generation_route.cc), on the route pool.
  void handle_generation(Endpoint endpoint, const std::shared_ptr<http::Exchange>& exchange);
  void compile_then_admit(Endpoint endpoint, const std::shared_ptr<http::Exchange>& exchange, ApiRequest request);
  void admit_and_answer(const std::shared_ptr<http::Exchange>& exchange, ApiRequest request);
  std::shared_ptr<Job> admit(ApiRequest request, std::vector<std::int32_t> prompt);
  void finish_choice(Job& job, int choice, GenerationHandle& handle);
  void answer_whole(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  http::Response whole_response(Job& job);
  // A finished choice's logprobs value (null when not asked); with completions echo, the prompt's
  // text goes before `result.text` and its logprobs before the choice's.
  nlohmann::json choice_logprobs(const Job& job, GenerationResult& result) const;
  void answer_choices(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  http::Response choices_response(Job& job);
  void answer_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  // Completions with several prompts or best_of > n (completion_batch.cc): one Job per prompt.
  static bool is_completion_batch(const ApiRequest& request);
  void admit_completion_batch(const std::shared_ptr<http::Exchange>& exchange, ApiRequest request);
  http::Response completion_batch_response(const std::vector<std::shared_ptr<Job>>& jobs, int n, bool rank,
                                           bool logprobs_asked);
  void stream_completion_batch(const std::shared_ptr<std::vector<std::shared_ptr<Job>>>& jobs,
                               std::shared_ptr<http::Exchange> exchange);
  void start_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  // One choice streamed with `encoder`'s events (the Messages and Responses streams).
  void stream_one_choice(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange,
                         std::unique_ptr<const EventEncoder> encoder);
  // Runs `step` on the route pool; `job` answered through `exchange` (errors become error answers).
  void respond_from_pool(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange,
                         http::Response (Impl::*build)(Job&));
  void on_route_pool(std::function<void()> step);
  // Runs a request's first step (parsing onwards): on the bulk lane when its body is large, else
  // on the route pool. Queued work whose client left is dropped before it starts.
  void on_request_lane(const std::shared_ptr<http::Exchange>& exchange, std::function<void()> step);
  std::string next_id(Endpoint endpoint);
  // --strict-requests / unknown-field warnings and --max-tokens-default (request_policy.cc).
  void apply_surface(ApiRequest& request, http::Exchange& exchange);  // also counts its media (/metrics)

  // POST /v1/embeddings (embeddings_route.cc): queued on `embeddings`, answered there.
  void queue_embeddings(const std::shared_ptr<http::Exchange>& exchange);
  http::Response answer_embeddings(http::Exchange& exchange);

  // POST /v1/responses (responses_route.cc), on the route pool.
  void handle_responses(const std::shared_ptr<http::Exchange>& exchange);
  // From admit_and_answer(): a job whose request has `responses` set.
  void answer_responses(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  void store_response(const Job& job, const ChatReply& reply, const nlohmann::json& response);  // unless store: false
  http::Response stored_response(const std::string& id, const std::string& owner);  // GET /v1/responses/{id}; throws ApiError 404
  http::Response responses_response(Job& job);
  void start_responses_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);

  // POST /v1/audio/transcriptions and /translations (audio/transcription_route.cc), on the route
  // pool; admitted like a chat completion and answered in the asked response_format.
  void handle_transcription(bool translate, const std::shared_ptr<http::Exchange>& exchange);
  void answer_transcription(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  http::Response transcription_response(Job& job);
  // An encoder-decoder (Whisper) package's transcription, its decodes admitted one at a time and
  // waited for on this thread (audio/whisper_route.cc).
  http::Response whisper_transcription(ApiRequest request);

  // POST /v1/audio/speech and /v1/images/generations (media_out/media_routes.cc): queued on
  // `media`, answered there, for packages whose workflow emits speech or images.
  enum class MediaRoute { kSpeech, kImages };
  void queue_media(MediaRoute route, const std::shared_ptr<http::Exchange>& exchange);
  http::Response answer_media(MediaRoute route, http::Exchange& exchange);
  void warn_unknown(const std::vector<std::string>& fields, const http::Exchange& exchange, const char* route) const;

  // POST /v1/messages and /v1/messages/count_tokens (messages_route.cc), on the route pool; a
  // parsed messages request is admitted like a chat completion and answered by answer_messages().
  void handle_messages(MessagesRoute route, const std::shared_ptr<http::Exchange>& exchange);
  void count_message_tokens(const std::shared_ptr<http::Exchange>& exchange, ApiRequest request);
  void answer_messages(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  http::Response messages_response(Job& job);
  void start_messages_stream(const std::shared_ptr<Job>& job, std::shared_ptr<http::Exchange> exchange);
  std::optional<std::string> stop_sequence(const std::vector<std::string>& stops, const GenerationResult& result) const;

  std::shared_ptr<const Model> model;
  ServerOptions options;
  ResponsesStore responses_store;  // finished responses for previous_response_id (responses_store.h)
  JsonLimits request_limits;  // JSON limits and per-field budgets of every generation request
  std::string name;                // what answers name as "model"
  std::vector<std::string> names;  // every id accepted as "model": name, then the aliases
  bool serves(const std::string& id) const;
  std::int64_t created = 0;
  int port = -1;  // bound by bind()
  std::string replica_id;                  // set by bind(), read-only after
  std::vector<http::Field> common_fields;  // x-ogai-replica; set by bind(), read-only after
  std::atomic<bool> serving{false};        // run() has started serving
  Scheduler scheduler;
  Metrics metrics;
  RequestGate gate;  // request id, CORS, API key, access log: before every route
  MemoryReturn memory_return;  // freed heap back to the OS after large requests
  http::HttpServer http;
  // Declared after http: joined first, so no step outlives the connections it answers.
  boost::asio::thread_pool routes;
  // Requests whose body is at least kBulkBodyBytes: parsed and translated one at a time, apart
  // from the route pool, so the streams and small requests it serves never wait behind them and
  // at most one large body's DOM is alive (issue 37 item 2).
  boost::asio::thread_pool bulk{1};
  GrammarPool grammars;  // compiles response formats and tool schemas (grammar_pool.h); joined first
  boost::asio::thread_pool embeddings{1};  // POST /v1/embeddings, one request at a time; joined first
  std::atomic<int> embeddings_pending{0};  // embedding requests queued or running
  boost::asio::thread_pool media{1};       // speech and image requests, one at a time; joined first
  std::atomic<int> media_pending{0};       // media requests queued or running

  std::mutex lifecycle;  // guards the flag below
  bool stop_requested = false;

};

// `error` as a response: its status and JSON body (and Retry-After: 1 on 429).
http::Response error_response(const ApiError& error);
// The same in the shape of the API `request` was sent to: Anthropic's under /v1/messages
// (messages_api.h), else OpenAI's (with the Responses field names under /v1/responses).
http::Response error_response(const ApiError& error, const http::Request& request);

}  // namespace ogai::serve
