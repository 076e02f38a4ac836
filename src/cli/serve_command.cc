// `ogai serve PKG [PKG...] [--models-dir DIR] [--models-max N] [--models-memory-mb N] [--models-queue N]
//   [--models-parallel N]
//  [--host H] [--port N] [--max-concurrent N] [--queue N] [--model-name NAME]
//  [--max-body-bytes N] [--max-connections N] [--idle-timeout S] [--header-timeout S] [--body-timeout S]
//  [--ep cpu|cuda] [--threads N] [--chat-template FILE] [--drain-timeout S] [--replica-id ID]
//  [--speculative ngram|assistant] [--draft-tokens N] [--grammar-timeout S] [--max-grammar-bytes N]
//  [--max-stop-strings N] [--max-stop-bytes N] [--pooling last|mean]
//  [surface flags: serve_surface_flags.h]`: an OpenAI-compatible HTTP server
// (docs/serve.md, docs/deploy.md). One PKG: the one-model server (serve/server.h); several, or
// --models-dir: the router (serve/router/router.h), each model under its folder's name
// (cli/model_catalog.h), loaded on demand. Prints "ogai serve: listening on http://HOST:PORT (...); chat page:
// http://HOST:PORT/" on stderr once it accepts connections. SIGTERM drains (/ready 503, new generations 503, admitted ones run
// to their end) for at most --drain-timeout seconds, then stops; SIGINT, a second signal, or
// --drain-timeout 0 stop at once (queued requests get 503, running generations are cancelled).
// Either way every thread is joined and it exits 0.
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <ctime>
#include <string>
#include <thread>

#include "cli/command.h"
#include "base/log.h"
#include "cli/model_catalog.h"
#include "cli/media_limit_flags.h"
#include "cli/model_flags.h"
#include "cli/serve_surface_flags.h"
#include "serve/router/router.h"
#include "serve/server.h"

namespace ogai::cli {
namespace {

struct ServeFlags {
  ModelFlags model;
  serve::ServerOptions server;
  std::string log_format = "text";
  double drain_timeout_s = 30;  // SIGTERM: the longest wait for admitted generations; 0 = stop at once
  std::vector<std::string> model_names;  // --model-name, repeatable: the name, then aliases
  bool max_connections_given = false;
  std::string pooling = "last";  // --pooling: POST /v1/embeddings' reduction of an input's hidden states
  std::vector<std::string> more_packages;  // PKG... after the first: the router
  std::string models_dir;                  // --models-dir DIR: the router
  serve::router::RegistryOptions registry;  // --models-max, --models-memory-mb, --models-queue
  std::size_t models_parallel = 0;          // --models-parallel
  bool routed() const { return !more_packages.empty() || !models_dir.empty(); }
};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// Waits up to `timeout_s` for the admitted generations to end; false when a second signal came.
// `S`: serve::Server or serve::Router.
template <typename S>
bool drain(S& server, const sigset_t& set, double timeout_s, const std::atomic<bool>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  const timespec tick{0, 20'000'000};
  server.begin_drain();
  while (!done && !server.idle() && std::chrono::steady_clock::now() < deadline) {
    if (const int sig = sigtimedwait(&set, nullptr, &tick); sig == SIGINT || sig == SIGTERM) return false;
  }
  return server.idle();
}

// Waits for SIGINT / SIGTERM (blocked in every thread, so only this one sees them) and stops the
// server, after a drain on SIGTERM; gives up when `done` is set (the server stopped for another reason).
template <typename S>
void wait_for_stop_signal(S& server, double drain_timeout_s, const std::atomic<bool>& done) {
  const sigset_t set = stop_signals();
  const timespec tick{0, 100'000'000};
  const char* id = server.replica_id().c_str();
  while (!done) {
    int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGTERM && drain_timeout_s > 0) {
      std::fprintf(stderr, "ogai serve [%s]: SIGTERM received, draining (at most %g s)\n", id, drain_timeout_s);
      const bool drained = drain(server, set, drain_timeout_s, done);
      std::fprintf(stderr, "ogai serve [%s]: %s, stopping\n", id,
                   drained ? "drained" : "drain cut short (timeout or second signal)");
      server.stop();
      return;
    }
    if (sig == SIGINT || sig == SIGTERM) {
      std::fprintf(stderr, "ogai serve [%s]: %s received, stopping\n", id, sig == SIGINT ? "SIGINT" : "SIGTERM");
      server.stop();
      return;
    }
  }
}

// Each connection is a descriptor: raise the soft limit to the hard one when --max-connections
// (plus the model's files and the process's own) needs more than it allows.
void raise_descriptor_limit(int connections) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(connections) + 256;
  if (limit.rlim_cur >= wanted) return;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
}

// --max-connections when not given: what the descriptor limit allows (the hard limit, less 256 for
// the model's files and the process's own), within [64, kMaxConnectionsLimit].
int default_max_connections() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 512;
  const rlim_t hard = limit.rlim_max == RLIM_INFINITY ? serve::kMaxConnectionsLimit : limit.rlim_max;
  return static_cast<int>(std::clamp<rlim_t>(hard > 256 ? hard - 256 : 0, 64, serve::kMaxConnectionsLimit));
}

// Where a browser on this machine opens the chat page: a wildcard host becomes the loopback address,
// an IPv6 one is bracketed.
std::string page_url(const serve::ServerOptions& o, int port) {
  if (!o.surface.webui) return "off (--no-webui)";
  std::string host = o.host == "0.0.0.0" ? "127.0.0.1" : o.host == "::" ? "::1" : o.host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(port) + "/";
}

// Serves until a stop signal; `server` is bound already.
template <typename S>
int serve_until_stopped(S& server, double drain_timeout_s) {
  std::atomic<bool> done{false};
  std::thread waiter([&] { wait_for_stop_signal(server, drain_timeout_s, done); });
  server.run();
  done = true;
  waiter.join();
  std::fprintf(stderr, "ogai serve [%s]: stopped\n", server.replica_id().c_str());
  return kExitOk;
}

// Several packages, or --models-dir: the router, each model loaded on demand.
int run_router(ServeFlags& f) {
  if (!f.model_names.empty())
    throw Error(ErrorCode::kInvalidArgument, "--model-name",
                "--model-name names the one model of a one-package server; with several packages each is served "
                "under its folder's name");
  std::vector<std::string> packages;
  if (!f.model.package.empty()) packages.push_back(f.model.package);
  packages.insert(packages.end(), f.more_packages.begin(), f.more_packages.end());
  serve::RouterOptions options{f.server, model_specs(packages, f.models_dir), f.registry};
  options.max_parallel = f.models_parallel;
  const ModelFlags model_flags = f.model;
  serve::Router router(std::move(options), [model_flags](const std::filesystem::path& package) {
    ModelFlags m = model_flags;
    m.package = package.string();
    return load_model(m);
  });
  const int port = router.bind();
  set_log_tag(router.replica_id());
  std::string ids;
  for (const auto& spec : model_specs(packages, f.models_dir)) ids += (ids.empty() ? "" : ", ") + spec.id;
  std::fprintf(stderr,
               "ogai serve: listening on http://%s:%d (models %s, loaded on demand; replica \"%s\", %d concurrent and "
               "queue %d per model, auth: %s); chat page: %s\n",
               f.server.host.c_str(), port, ids.c_str(), router.replica_id().c_str(), f.server.max_concurrent,
               f.server.queue, f.server.surface.api_keys.empty() ? "none" : "api key required",
               page_url(f.server, port).c_str());
  return serve_until_stopped(router, f.drain_timeout_s);
}

int run_serve(ServeFlags f) {
  // The server's own part and file budgets (serve.h) also bound what the engine decodes.
  f.model.media_limits.max_media_parts = f.server.max_media_parts;
  f.model.media_limits.max_media_bytes = f.server.max_media_bytes;
  f.server.max_audio_seconds = f.model.media_limits.max_audio_seconds;
  f.server.max_decoded_bytes = f.model.media_limits.max_decoded_bytes;
  if (f.model.package.empty() && !f.routed())
    throw Error(ErrorCode::kInvalidArgument, "PKG", "name a package to serve (PKG), several, or --models-dir DIR");
  if (!f.model_names.empty()) {
    f.server.model_name = f.model_names.front();
    f.server.model_aliases.assign(f.model_names.begin() + 1, f.model_names.end());
  }
  if (!f.max_connections_given) f.server.max_connections = default_max_connections();
  f.server.embedding_pooling = f.pooling == "mean" ? Pooling::kMean : Pooling::kLast;
  // Before any thread exists (ONNX Runtime's pools included), so that every thread inherits the mask.
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up is a failed write, not a dead server
  // Few malloc arenas: freed request memory is then reused and trimmed rather than kept per thread
  // (MALLOC_ARENA_MAX in the environment still decides).
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr) mallopt(M_ARENA_MAX, 4);
  raise_descriptor_limit(f.server.max_connections);
  apply_log_format(f.log_format);
  if (f.routed()) return run_router(f);
  auto model = load_model(f.model);
  serve::Server server(model, f.server);
  const int port = server.bind();
  set_log_tag(server.replica_id());  // the process serves one replica: every later log line names it
  std::fprintf(stderr,
               "ogai serve: listening on http://%s:%d (model \"%s\", replica \"%s\", %d concurrent, queue %d, "
               "auth: %s); chat page: %s\n",
               f.server.host.c_str(), port, server.model_name().c_str(), server.replica_id().c_str(),
               f.server.max_concurrent, f.server.queue,
               f.server.surface.api_keys.empty() ? "none" : "api key required", page_url(f.server, port).c_str());
  return serve_until_stopped(server, f.drain_timeout_s);
}

// Many packages in one server (docs/serve.md "Many models").
void add_models_flags(CLI::App& cmd, ServeFlags& f) {
  cmd.get_option("PKG")->required(false);
  cmd.add_option("MORE", f.more_packages,
                 "more packages: serve them all from one server, each under its folder's name, loaded on demand");
  cmd.add_option("--models-dir", f.models_dir,
                 "serve every package folder directly inside DIR (v1 packages, ONNX Runtime GenAI and Optimum "
                 "folders), each under its folder's name, loaded on demand");
  cmd.add_option("--models-max", f.registry.limits.max_loaded,
                 "with several models: most loaded at once; loading one more unloads the least recently used idle "
                 "one (0 = no limit)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))->capture_default_str();
  cmd.add_option_function<std::size_t>(
         "--models-memory-mb", [&f](std::size_t mb) { f.registry.limits.memory_bytes = mb << 20; },
         "with several models: budget for the loaded models' package files, MiB; loading past it unloads the least "
         "recently used idle ones (0 = no budget)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  cmd.add_option("--models-queue", f.registry.max_waiting,
                 "with several models: requests that may wait for one model's load (more get 429)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{serve::kQueueLimit}))->capture_default_str();
  cmd.add_option("--models-parallel", f.models_parallel,
                 "with several models: requests in flight across all models at once, loads included; "
                 "--models-queue more wait for a place, the next gets 429 (0 = no cap)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 20))->capture_default_str();
}

}  // namespace

void add_serve_command(CLI::App& app, CommandResult& result) {
  auto flags = std::make_shared<ServeFlags>();
  auto* cmd = app.add_subcommand("serve", "serve a package, or several (PKG PKG..., --models-dir DIR), over an OpenAI-compatible HTTP API");
  add_model_flags(*cmd, flags->model);
  add_models_flags(*cmd, *flags);
  add_chat_template_flag(*cmd, flags->model);
  cmd->add_option("--input", flags->model.workflow_inputs,
                  "NAME=JSON or NAME=@FILE.npy: a tensor every request of an interpreted workflow package gets");
  add_speculative_flags(*cmd, flags->server.speculative);
  add_surface_flags(*cmd, flags->server.surface, flags->log_format);
  auto& s = flags->server;
  cmd->add_option("--host", s.host, "address to listen on")->capture_default_str();
  cmd->add_option("--port", s.port, "port to listen on (0 = any free port)")
      ->check(CLI::Range(0, 65535))->capture_default_str();
  cmd->add_option("--max-concurrent", s.max_concurrent, "generations running at once")
      ->check(CLI::Range(1, serve::kMaxConcurrentLimit))->capture_default_str();
  cmd->add_option("--queue", s.queue, "requests that may wait beyond those (more get 429)")
      ->check(CLI::Range(0, serve::kQueueLimit))->capture_default_str();
  cmd->add_option("--model-name", flags->model_names,
                  "the model id clients send (default: the package folder's name); repeat it for aliases, "
                  "answers name the first")
      ->allow_extra_args(false);
  cmd->add_option("--max-body-bytes", s.max_body_bytes, "largest request body (more get 413)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))->capture_default_str();
  cmd->add_option_function<int>(
         "--max-connections", [flags](int n) {
           flags->server.max_connections = n;
           flags->max_connections_given = true;
         },
         "open connections at once (more get 503; default: what the descriptor limit allows, less 256)")
      ->check(CLI::Range(1, serve::kMaxConnectionsLimit));
  cmd->add_option("--max-connections-per-peer", s.max_connections_per_peer,
                  "open connections from one client address not answering a request (0 = --max-connections / 8, at "
                  "least 8); a new one "
                  "beyond takes the place of that peer's oldest connection still sending its header")
      ->check(CLI::Range(0, serve::kMaxConnectionsLimit))->capture_default_str();
  cmd->add_option("--idle-timeout", s.idle_timeout_s, "seconds a connection may wait before its next request")
      ->check(CLI::Range(0.001, 86400.0))->capture_default_str();
  cmd->add_option("--header-timeout", s.header_timeout_s, "seconds a request's header may take to arrive")
      ->check(CLI::Range(0.001, 86400.0))->capture_default_str();
  cmd->add_option("--body-timeout", s.body_timeout_s, "seconds a request's body may take to arrive")
      ->check(CLI::Range(0.001, 86400.0))->capture_default_str();
  cmd->add_option("--drain-timeout", flags->drain_timeout_s,
                  "on SIGTERM, seconds to let admitted generations finish while refusing new ones (0 = stop at once)")
      ->check(CLI::Range(0.0, 86400.0))->capture_default_str();
  cmd->add_option("--replica-id", s.replica_id,
                  "this replica's name in the x-ogai-replica header, logs and metrics (default: hostname:port)");
  cmd->add_option("--max-step-tokens", s.engine.max_step_tokens,
                  "prompt tokens prefilled per engine step beside the decoding rows (chunked prefill)")
      ->check(CLI::Range(1, 1 << 20))->capture_default_str();
  cmd->add_option_function<std::size_t>(
         "--kv-cache-mib", [&s](std::size_t mib) { s.engine.kv_cache_bytes = mib << 20; },
         "bound on the KV cache the running requests may grow to, MiB (default: --max-concurrent requests at the "
         "full context, at most 4096)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24));
  cmd->add_option_function<std::size_t>(
         "--prefix-cache-mib", [&s](std::size_t mib) { s.engine.prefix_cache_bytes = mib << 20; },
         "KV of finished requests kept for prompts that share their prefix, MiB (0 = off; default 256)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 24));
  cmd->add_option("--grammar-timeout", s.grammar.seconds,
                  "seconds a request's structured-output grammar may take to compile (more get 400; 0 = no limit)")
      ->check(CLI::Range(0.0, 86400.0))->capture_default_str();
  cmd->add_option("--max-grammar-bytes", s.grammar.max_bytes,
                  "largest response_format schema or grammar, and tool parameters summed, in bytes (more get 400)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))->capture_default_str();
  cmd->add_option("--responses-store-bytes", s.responses_store_bytes,
                  "text the Responses store keeps for previous_response_id and GET /v1/responses/{id}, in bytes "
                  "(least recently used out; 0 = keep none)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 40))->capture_default_str();
  cmd->add_option("--max-stop-strings", s.max_stop_strings, "most stop strings one request may send (more get 400)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))->capture_default_str();
  cmd->add_option("--max-stop-bytes", s.max_stop_bytes, "most bytes a request's stop strings may hold together")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30))->capture_default_str();
  cmd->add_option("--max-media-parts", s.max_media_parts,
                  "most images and audio clips one request may carry (more get 400)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))->capture_default_str();
  cmd->add_option("--max-media-bytes", s.max_media_bytes,
                  "largest image or audio clip in a request, decoded or fetched, in bytes (larger get 400)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32))->capture_default_str();
  add_decode_limit_flags(*cmd, flags->model.media_limits);
  cmd->add_flag("--allow-media-urls", s.allow_media_urls,
                "fetch http(s) image URLs of requests (OpenAI image_url, Responses input_image, Anthropic url "
                "sources; off: data URLs only), within --max-media-bytes, --media-url-timeout, 3 redirects, and "
                "never from private or local addresses unless --allow-private-media-urls");
  cmd->add_flag("--allow-private-media-urls", s.allow_private_media_urls,
                "with --allow-media-urls: also fetch from loopback, private and link-local addresses (only where "
                "every client may reach what the server can)");
  cmd->add_option("--media-url-timeout", s.media_url_timeout, "seconds one media URL fetch may take in all")
      ->check(CLI::Range(0.001, 600.0))->capture_default_str();
  cmd->add_option("--pooling", flags->pooling,
                  "how POST /v1/embeddings reduces an input's hidden states to one vector: the last token's (usual "
                  "for decoder LLMs) or the mean over its tokens; L2-normalized either way")
      ->check(CLI::IsMember({"last", "mean"}))
      ->capture_default_str();
  cmd->callback([&result, flags] { result.exit_code = run_serve(*flags); });
}

}  // namespace ogai::cli
