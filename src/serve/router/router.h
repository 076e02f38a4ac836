// ogai::serve::Router: many packages behind one OpenAI-compatible HTTP server (`ogai serve PKG
// PKG...` or `--models-dir DIR`; docs/serve.md "Many models"). Each model is served under its id
// and picked by a request's "model" field (chat, completions, Responses, Messages, count_tokens,
// embeddings, transcriptions and translations, /tokenize, /detokenize); with one model only, a
// request without "model" goes to it. Each loaded model is the one-model server's unit
// (model_unit.h: its own scheduler, engine, pools and limits: --max-concurrent and --queue apply
// per model). Routes of its own:
//   GET  /v1/models[/{id}]   every model with its state: "loaded", "not_loaded", "loading",
//                            "failed" (with "error"), requests in flight and waiting, its size
//   POST /models/load        {"model": ID}: load it now (a failed one is tried again); 200 once
//                            loaded, else the refusal (below)
//   POST /models/unload      {"model": ID}: unload it when idle (409 while it has requests in flight)
//   GET  /ready              200 while serving, not draining, and some model is loaded or may
//                            still load (not every one failed); the body lists them by state
//   GET  /metrics            the router's HTTP series once, then each loaded model's generation
//                            series labelled model="ID" (metrics_merge.h), and
//                            ogai_model_state{model,state} 1 per model
// With --models-parallel N, at most N requests are in flight across all models (a load included),
// --models-queue more wait for a place in arrival order, and the next is answered 429.
// A request for a model that is not loaded loads it (model_registry.h: bounded wait, LRU eviction
// of idle models under --models-max / --models-memory-mb); a model that failed to load answers its
// own requests 500 model_load_failed with its error, and the others keep serving. Every route is
// behind the RequestGate (API key, CORS, access log), /models/load and /unload included.
//
// Thread safety: bind() and run() from one thread; stop() and begin_drain() from any thread.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "serve/router/model_registry.h"
#include "serve/server.h"

namespace ogai::serve {

struct RouterOptions {
  ServerOptions server;                 // the transport's, and each model's (model_name and aliases unused)
  std::vector<router::ModelSpec> models;
  router::RegistryOptions registry;     // --models-max, --models-memory-mb, requests waiting per load
  // --models-parallel: requests in flight across all models at once (router/flight_gate.h), 0 = no
  // cap; registry.max_waiting more wait for a place, the next gets 429 models_parallel_queue_full.
  std::size_t max_parallel = 0;
};

class Router {
 public:
  // Loads a package (e.g. ogai::Model::load with the CLI's options); throws with the reason.
  using LoadModel = std::function<std::shared_ptr<const Model>(const std::filesystem::path& package)>;

  // Throws ogai::Error (kInvalidArgument) for options out of range, an empty or duplicate id.
  Router(RouterOptions options, LoadModel load);
  ~Router();  // stop()s, unloads every model and joins every thread
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  int bind();
  void run();
  void stop();
  void begin_drain();
  bool idle() const;  // no admitted generation, load or waiting request is left
  const std::string& replica_id() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ogai::serve
