// Server::Impl: the server's state and its HTTP handlers (internal to serve; the one place with
// server.cc and generation_route.cc that includes the HTTP library).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>

#include "serve/api_request.h"
#include "serve/api_response.h"
#include "serve/connection_drain.h"
#include "serve/generation_channel.h"
#include "serve/metrics.h"
#include "serve/scheduler.h"
#include "serve/server.h"

namespace ogai::serve {

// One admitted generation (n choices), shared by the HTTP thread that answers it and the
// engine's thread that runs it: choice i reports through channels[i] (`channel` = channels[0]).
struct Job {
  ResponseMeta meta;
  ApiRequest request;
  std::vector<std::int32_t> prompt;
  std::shared_ptr<GenerationChannel> channel;
  std::vector<std::shared_ptr<GenerationChannel>> channels;
  std::vector<std::shared_ptr<GenerationHandle>> handles;
  std::mutex handles_mutex;  // handles are set after submission, read by cancel()
  // The client went away: every choice ends at the engine's next step, queued or running.
  void cancel();
};

// httplib's server with the listen backlog it fixes at 5 raised: a burst of clients connecting at
// once would otherwise overflow it and wait a second for their SYN to be retried.
// It also closes a listener that was bound but never served (httplib's destructor leaves it open).
class HttpServer : public httplib::Server {
 public:
  void set_listen_backlog(int backlog) { ::listen(svr_sock_, backlog); }
  void close_unused_listener() {
    if (is_running()) return;
    socket_t sock = svr_sock_.exchange(INVALID_SOCKET);
    if (sock != INVALID_SOCKET) ::close(sock);
  }
};

struct Server::Impl {
  Impl(std::shared_ptr<const Model> m, ServerOptions o);

  // Routes (server.cc).
  void add_routes();
  void add_method_guards();
  void add_error_handlers();
  void answer_models(const httplib::Request& req, httplib::Response& res) const;

  // Generation (generation_route.cc).
  void handle_generation(Endpoint endpoint, const httplib::Request& req, httplib::Response& res);
  std::shared_ptr<Job> admit(ApiRequest request, std::vector<std::int32_t> prompt);
  void finish_choice(Job& job, int choice, GenerationHandle& handle);
  void answer_whole(Job& job, httplib::Response& res);
  void answer_choices(Job& job, httplib::Response& res);
  void answer_stream(const std::shared_ptr<Job>& job, httplib::Response& res);
  std::string next_id(Endpoint endpoint);

  std::shared_ptr<const Model> model;
  ServerOptions options;
  std::string name;
  std::int64_t created = 0;
  int port = -1;  // bound by bind()
  Scheduler scheduler;
  Metrics metrics;
  ConnectionDrain drain;
  HttpServer http;

  std::mutex lifecycle;       // guards the three flags below
  bool stop_requested = false;
  bool serving = false;       // run() is about to listen or listening
  std::atomic<bool> listen_returned{false};

  std::mutex id_mutex;
  std::mt19937_64 id_rng;
};

// Writes `error` as the response (status and JSON body).
void write_error(httplib::Response& res, const ApiError& error);

}  // namespace ogai::serve
