// ogai::serve::Server: an OpenAI-compatible HTTP server over one loaded Model.
//
//   GET  /health                 {"status":"ok"}: alive (200 while draining, 503 while stopping)
//   GET  /ready                  {"status":"ready"}: loaded and admitting work; 503 while draining or stopping
//   GET  /metrics                Prometheus text (metrics.h)
//   GET  /, /webui/NAME          the chat page (webui/chat_page.h), unless surface.webui is false
//   GET  /v1/models[/{id}]       the one served model
//   POST /v1/chat/completions    messages through the package's chat template
//   POST /v1/completions         a prompt string (or token ids)
//   POST /v1/responses           OpenAI's Responses API (responses_api.h)
//   GET  /v1/responses/{id}      a stored response (responses_store.h)
//   POST /v1/embeddings          pooled hidden states (Model::embed; embeddings_api.h)
//   POST /v1/messages            Anthropic's Messages API (anthropic/messages_request.h)
//   POST /v1/audio/transcriptions, /v1/audio/translations  multipart audio (audio/transcription_request.h)
// Every generation surface parses its body once into the request model (common/conversation.h):
// text, image, audio, tool call, tool result and reasoning parts.
// Every /v1 route also answers without the prefix (POST /chat/completions, GET /models, ...), as
// llama-server does, for clients whose base URL lacks /v1.
// The POST routes answer whole JSON or, with "stream": true, server-sent events (docs/serve.md).
// Every request passes the RequestGate first (request id, CORS, API key, access log; request_gate.h).
//
// Generations run on one batched engine (ogai::Engine): up to `max_concurrent` requests are rows
// of its batch, decoded together one token per step, with a prefix cache across requests; up to
// `queue` more wait in FIFO order, beyond that 429. `n` choices share one prefill. The HTTP
// transport is event-driven (src/serve/http/): connections cost no thread, each request's header
// and body arrive under deadlines and size limits, and at most `max_connections` are open. Every
// bad request is answered with a 4xx and an OpenAI-style error body; the server keeps serving. A
// streaming client that disconnects cancels its generation. stop() (e.g. on SIGINT) refuses new
// work with 503, answers queued requests 503, cancels running generations and returns from run()
// once every thread has ended. begin_drain() (SIGTERM in `ogai serve`) is the graceful way out
// (readiness.cc): /ready turns 503 and new generations are refused with 503 (a balancer retries
// them on another replica) while the admitted ones run to their end; idle() then tells the caller
// it may stop() without cancelling anything. Every answer carries `x-ogai-replica: <replica id>`.
//
// Thread safety: bind() and run() from one thread; stop() from any thread, any number of times.
#pragma once

#include <cstdint>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ogai/ogai.h"

namespace ogai::serve {

// Bounds on admission (each admitted request holds its prompt and, once running, a row of the engine).
constexpr int kMaxConcurrentLimit = 1024;
constexpr int kQueueLimit = 4096;
constexpr int kMaxConnectionsLimit = 65536;

// The server's surface to clients: who may call it, from which browser origins, how strictly
// requests are read, and what is logged per request (docs/serve.md).
struct SurfaceOptions {
  // Non-empty: requests need "Authorization: Bearer KEY" with one of these keys, else 401. Each key
  // is a tenant: a stored response is readable only with the key that created it.
  std::vector<std::string> api_keys;
  bool protect_probes = false;            // with api_keys: /health, /ready and /metrics need a key too
  std::vector<std::string> cors_origins;  // browser origins allowed ("*" = any); empty = no CORS headers
  bool strict_requests = false;           // unknown request fields -> 400 naming them (else a warning)
  std::optional<int> max_tokens_default;  // max tokens of a request that sets none (unset: the context's room)
  bool access_log = true;                 // one line per answered request on stderr (format: base/log.h)
  bool webui = true;                      // the chat page at / (webui/chat_page.h); false (--no-webui): 404 there
  // Values for the sampling fields a request leaves out (--temperature, --top-p, ..., --seed).
  // Where these leave one unset: the package's generation_config.json value, else OpenAI's
  // default (temperature 1, top_p 1, filters off); a request samples unless its temperature is 0.
  SamplingOptions sampling_defaults;
};

// Structured-output compilation (serve/engine/grammar_pool.h): a pool apart from the route threads.
struct GrammarLimits {
  int threads = 2;                      // compilations at once
  int queue = 64;                       // requests waiting for a compile thread; one more -> 429
  double seconds = 5;                   // per request (--grammar-timeout); 0 = none
  std::size_t max_bytes = 1 << 20;      // schema or grammar text, tool parameters summed (--max-grammar-bytes)
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                            // 0 = any free port (bind() returns it)
  int max_concurrent = 16;                    // requests decoded together (engine rows), [1, kMaxConcurrentLimit]
  int queue = 64;                             // requests waiting beyond those, [0, kQueueLimit]; more -> 429
  std::string model_name;                     // the id clients send as "model"; empty = the package folder's name
  std::vector<std::string> model_aliases;     // more ids accepted as "model" (answers name model_name)
  std::size_t max_body_bytes = 8 << 20;       // larger request bodies -> 413 (chunked too, as they arrive)
  int max_connections = 512;                  // open connections, [1, kMaxConnectionsLimit]; one more -> 503
  int max_connections_per_peer = 0;           // from one client address; 0 = max_connections / 8 (at least 8)
  double idle_timeout_s = 5;                  // a connection with no next request for this long is closed
  double header_timeout_s = 10;               // a request's header must arrive within this of its first byte
  double body_timeout_s = 60;                 // its body within this of the header's end
  std::string replica_id;                     // x-ogai-replica and log lines; "" = hostname:port (port once bound)
  EngineOptions engine;                       // batching, KV and prefix-cache bounds (max_sequences = max_concurrent)
  // Speculative decoding of every request it can serve (drafter kNone = off), in the one engine
  // beside plain rows; requests asking prompt logprobs (echo with logprobs) or max_tokens 0 decode
  // plainly. Checked against the package when the server is constructed.
  SpeculativeOptions speculative;
  SurfaceOptions surface;                     // API key, CORS, request checks, access log (below)
  GrammarLimits grammar;                      // structured-output compilation: pool, time and size budgets
  // Per-request budgets on `stop` (docs/serve.md "Request budgets"; more -> 400 naming the flag).
  std::size_t max_stop_strings = 16;          // OpenAI accepts 4
  std::size_t max_stop_bytes = 4096;          // all stop strings together
  // Images and audio in one request (common/media_input.h; more or larger -> 400 naming the flag).
  std::size_t max_media_parts = 32;           // --max-media-parts
  std::size_t max_media_bytes = 20u << 20;    // --max-media-bytes: one part, decoded
  // Audio the server decodes itself (a Whisper transcription's windows): --max-audio-seconds and
  // --max-decoded-bytes, the same budgets the engine applies to media parts.
  double max_audio_seconds = 3600;
  std::uint64_t max_decoded_bytes = 256ull << 20;
  // http(s) media URLs (common/media_fetch.h): off unless --allow-media-urls; private addresses
  // need --allow-private-media-urls; --media-url-timeout bounds each fetch.
  bool allow_media_urls = false, allow_private_media_urls = false;
  double media_url_timeout = 10.0;  // seconds
  // POST /v1/embeddings: how an input's hidden states become one vector (--pooling).
  Pooling embedding_pooling = Pooling::kLast;
  // The Responses store (responses_store.h): text it may hold, oldest-used out (--responses-store-bytes).
  std::size_t responses_store_bytes = 64u << 20;
};

// Throws ogai::Error (kInvalidArgument) naming the first option out of range (what Server's
// constructor checks; the router checks its options so once at start).
void check_options(const ServerOptions& options);

class Server {
 public:
  // Throws ogai::Error (kInvalidArgument) for options out of range.
  Server(std::shared_ptr<const Model> model, ServerOptions options);
  ~Server();  // stop()s and waits for every thread
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds host:port and returns the port bound. Throws ogai::Error (kRuntime) if it cannot.
  int bind();
  // Serves until stop(); returns once every connection and generation has ended.
  void run();
  void stop();
  // Graceful drain (any thread, idempotent): stop admitting, keep serving what was admitted.
  void begin_drain();
  // No admitted generation is left (running or waiting).
  bool idle() const;

  const std::string& model_name() const;
  const std::string& replica_id() const;  // final once bind() returned

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ogai::serve
