// Router::Impl: the router's state (internal to serve/router): its own transport and gate, the
// registry of models and the loader thread that loads them, and a small pool that reads each
// request's "model" field and hands the request to that model's unit.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <mutex>

#include <nlohmann/json.hpp>

#include "serve/http/http_server.h"
#include "serve/ops/metrics.h"
#include "serve/ops/request_gate.h"
#include "serve/router/model_loader.h"
#include "serve/router/model_registry.h"
#include "serve/router/flight_gate.h"
#include "serve/router/model_unit.h"
#include "serve/router/router.h"

namespace ogai::serve {

struct Router::Impl {
  Impl(RouterOptions o, LoadModel load);
  ~Impl();

  // Routing (router.cc).
  void route(std::shared_ptr<http::Exchange> exchange);  // on an I/O thread: must not block
  void answer_route(const std::shared_ptr<http::Exchange>& exchange);
  // Reads the model a request asks for (on `dispatch`) and hands it to that model's unit.
  void dispatch(const std::shared_ptr<http::Exchange>& exchange);
  // Asks the registry for model `id` (after the FlightGate let the request in).
  void acquire(const std::shared_ptr<http::Exchange>& exchange, const std::string& id);
  void hand_over(const std::shared_ptr<http::Exchange>& exchange, router::Grant grant);
  std::shared_ptr<router::Served> load_unit(const router::ModelSpec& spec);

  // The router's own routes (router_routes.cc).
  http::Response answer_models(const std::string& id) const;
  http::Response answer_ready() const;
  http::Response answer_metrics() const;
  http::Response answer_version() const;
  http::Response answer_stored(const http::Request& request, const std::string& id) const;
  void handle_model_control(bool load, const std::shared_ptr<http::Exchange>& exchange);
  void respond_control(const std::shared_ptr<http::Exchange>& exchange, const std::string& id, bool load,
                       router::Grant grant);
  nlohmann::json model_entry(const router::ModelStatus& status) const;

  RouterOptions options;
  LoadModel load;
  std::int64_t created = 0;
  int port = -1;
  std::string replica_id;
  std::vector<http::Field> common_fields;
  std::atomic<bool> serving{false};
  std::atomic<bool> draining{false};
  std::atomic<bool> stopping{false};
  Metrics metrics;  // HTTP requests, replica (the models' generation series are their units')
  RequestGate gate;
  router::FlightGate flight;  // --models-parallel; before http: its exchanges hold slots
  router::ModelRegistry registry;
  router::ModelLoader loader;  // after registry: joined (its last jobs run) while the registry lives
  http::HttpServer http;
  boost::asio::thread_pool dispatch_pool{2};  // after http: joined first
};

// A registry refusal as the API of `request` shapes errors (server_impl.h's error_response).
http::Response refusal_response(const router::Refusal& refusal, const http::Request& request);

}  // namespace ogai::serve
