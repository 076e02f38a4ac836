// Router lifecycle (bind, run, stop, drain) and routing: the router's own routes answer here or
// in router_routes.cc; every model route goes through dispatch() to its model's unit.
#include "serve/router/router.h"

#include <boost/asio/post.hpp>

#include <ctime>
#include <unistd.h>

#include <climits>
#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/log.h"
#include "serve/route_table.h"
#include "serve/router/request_model.h"
#include "serve/router/router_impl.h"
#include "serve/server_impl.h"
#include "serve/webui/chat_page.h"

namespace ogai::serve {
namespace {

constexpr int kIoThreads = 2;

http::Limits limits_of(const ServerOptions& o) {
  http::Limits l;
  l.max_connections = static_cast<std::size_t>(o.max_connections);
  l.max_connections_per_peer = static_cast<std::size_t>(o.max_connections_per_peer);
  l.max_body_bytes = o.max_body_bytes;
  auto millis = [](double s) { return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(s * 1000))); };
  l.idle_timeout = millis(o.idle_timeout_s);
  l.header_timeout = millis(o.header_timeout_s);
  l.body_timeout = millis(o.body_timeout_s);
  return l;
}

std::string label_of(const std::string& path) {
  if (path == "/models/load" || path == "/models/unload") return path;
  return endpoint_label(path);
}

std::string host_name() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "ogai";
  return buf;
}

router::Refusal shutdown_refusal() { return {503, "shutting_down", "the server is shutting down"}; }

std::vector<router::ModelSpec> checked_models(std::vector<router::ModelSpec> models) {
  if (models.empty()) fail(ErrorCode::kInvalidArgument, "models", "the router needs at least one model");
  return models;
}

}  // namespace

http::Response refusal_response(const router::Refusal& refusal, const http::Request& request) {
  ApiError e;
  e.status = refusal.status;
  e.code = refusal.code;
  e.message = without_absolute_paths(refusal.message);
  if (refusal.code == "model_not_found") e.param = "model";
  if (refusal.status >= 500) e.type = "server_error";
  http::Response r = error_response(e, request);
  if (refusal.status == 503 || refusal.status == 429) r.fields.emplace_back("Retry-After", "1");
  return r;
}

Router::Impl::Impl(RouterOptions o, LoadModel l)
    : options(std::move(o)),
      load(std::move(l)),
      gate(options.server.surface),
      flight(options.max_parallel, options.registry.max_waiting),
      registry(checked_models(options.models), options.registry,
               [this](const router::ModelSpec& spec) { return load_unit(spec); },
               [this](std::function<void()> job) { loader.post(std::move(job)); }),
      http(limits_of(options.server), {[this](std::shared_ptr<http::Exchange> e) { route(std::move(e)); },
                                       [](const http::Failure& f) { return transport_failure_response(f); },
                                       [this](const std::string& path, int status) {
                                         metrics.count_request(label_of(path), status);
                                       },
                                       [this]() -> const std::vector<http::Field>& { return common_fields; }}) {
  created = static_cast<std::int64_t>(std::time(nullptr));
  check_options(options.server);  // as the one-model server checks them, once, at start (not per load)
}

Router::Impl::~Impl() {
  flight.close();  // a slot freed from now on starts nothing on the pool
  dispatch_pool.join();  // no request step is left to reach a model
  registry.stop();  // loads still queued on the loader now return at once
  registry.take_all().clear();  // every loaded model's threads joined here; the loader is joined next
}

std::shared_ptr<router::Served> Router::Impl::load_unit(const router::ModelSpec& spec) {
  std::shared_ptr<const Model> model = load(spec.package);
  auto unit = std::make_shared<router::ModelUnit>(std::move(model), options.server, spec.id, replica_id);
  if (draining) unit->drain();
  return unit;
}

void Router::Impl::route(std::shared_ptr<http::Exchange> exchange) {
  guarded_route(gate, exchange, [&] { answer_route(exchange); });
}

void Router::Impl::answer_route(const std::shared_ptr<http::Exchange>& exchange) {
  const http::Request& req = exchange->request();
  if (req.path == "/models/load" || req.path == "/models/unload") {
    if (req.method != "POST") return exchange->respond(method_not_allowed(req, Route{"", "", "POST"}));
    const bool load_it = req.path == "/models/load";
    return boost::asio::post(dispatch_pool, [this, load_it, exchange] { handle_model_control(load_it, exchange); });
  }
  const std::optional<MatchedRoute> matched = match_route(*exchange, options.server.surface.webui);
  if (!matched) return;
  const Route* r = matched->route;
  const std::string& path = matched->path;
  const std::string label = r->label;
  if (label == "/health") {
    http::Response res = text_response(stopping ? R"({"status":"stopping"})" : R"({"status":"ok"})");
    if (stopping) res.status = 503;
    return exchange->respond(std::move(res));
  }
  if (label == "/ready") return exchange->respond(answer_ready());
  if (label == "/metrics") return exchange->respond(answer_metrics());
  if (label == "/version") return exchange->respond(answer_version());
  if (label == "/v1/models") return exchange->respond(answer_models(""));
  if (label == "/v1/models/{id}")
    return exchange->respond(answer_models(percent_decoded(path.substr(std::strlen(r->path)))));
  if (label == "/v1/responses/{id}")
    return exchange->respond(answer_stored(req, percent_decoded(path.substr(std::strlen(r->path)))));
  boost::asio::post(dispatch_pool, [this, exchange] { dispatch(exchange); });
}

void Router::Impl::dispatch(const std::shared_ptr<http::Exchange>& exchange) {
  if (exchange->client_gone()) return;
  const http::Request& req = exchange->request();
  std::optional<std::string> id = router::requested_model(req);
  if (!id && registry.size() == 1) id = registry.ids().front();
  if (!id) {
    std::string served;
    for (const std::string& s : registry.ids()) served += (served.empty() ? "" : ", ") + s;
    return exchange->respond(error_response(
        invalid_request("model", "model: required (a string naming one of the served models: " + served + ")"), req));
  }
  if (flight.max_in_flight() == 0) return acquire(exchange, *id);
  const bool entered = flight.enter([this, exchange, id = *id](std::shared_ptr<router::FlightSlot> slot) {
    // Now, or on the thread that freed a place: the rest of the request runs on the pool.
    boost::asio::post(dispatch_pool, [this, exchange, id, slot = std::move(slot)] {
      if (exchange->client_gone()) return;  // the slot goes with this job
      exchange->hold(slot);  // freed once the answer is done
      if (stopping) return exchange->respond(refusal_response(shutdown_refusal(), exchange->request()));
      acquire(exchange, id);
    });
  });
  if (entered) return;
  if (stopping) return exchange->respond(refusal_response(shutdown_refusal(), req));
  router::Refusal refusal{429, "models_parallel_queue_full",
                          "the server has " + std::to_string(flight.max_in_flight()) +
                              " requests in flight across its models (--models-parallel) and " +
                              std::to_string(options.registry.max_waiting) +
                              " waiting for a place (--models-queue); retry later"};
  exchange->respond(refusal_response(refusal, req));
}

void Router::Impl::acquire(const std::shared_ptr<http::Exchange>& exchange, const std::string& id) {
  registry.acquire(id, [this, exchange](router::Grant grant) { hand_over(exchange, std::move(grant)); }, !draining);
}

void Router::Impl::hand_over(const std::shared_ptr<http::Exchange>& exchange, router::Grant grant) {
  if (grant.refusal) return exchange->respond(refusal_response(*grant.refusal, exchange->request()));
  auto& unit = static_cast<router::ModelUnit&>(grant.lease->model());
  exchange->hold(std::move(grant.lease));  // released once the answer is done
  try {
    unit.answer(exchange);
  } catch (const std::exception& e) {
    exchange->respond(error_response(internal_error(e.what()), exchange->request()));
  }
}

Router::Router(RouterOptions options, LoadModel load)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(load))) {}

Router::~Router() { stop(); }

int Router::bind() {
  Impl& i = *impl_;
  i.port = i.http.bind(i.options.server.host, i.options.server.port);
  i.replica_id = i.options.server.replica_id.empty() ? host_name() + ":" + std::to_string(i.port)
                                                     : i.options.server.replica_id;
  i.common_fields = {{"x-ogai-replica", i.replica_id}};
  i.metrics.set_identity("", i.replica_id);  // the router writes no model_name series itself
  return i.port;
}

void Router::run() {
  if (impl_->stopping) return;
  impl_->serving = true;
  impl_->http.run(kIoThreads);  // returns after stop(), once every connection has ended
}

void Router::stop() {
  if (impl_->stopping.exchange(true)) return;
  impl_->registry.stop();  // requests waiting for a load -> 503
  for (auto& [id, unit] : impl_->registry.loaded()) static_cast<router::ModelUnit&>(*unit).shutdown();
  impl_->http.stop();
}

void Router::begin_drain() {
  if (impl_->draining.exchange(true)) return;
  const router::LoadedModels models = impl_->registry.loaded();
  for (auto& [id, unit] : models) static_cast<router::ModelUnit&>(*unit).drain();
  log(LogLevel::kInfo, "serve: draining {} loaded models", models.size());
}

bool Router::idle() const {
  if (impl_->registry.loading()) return false;
  for (auto& [id, unit] : impl_->registry.loaded())
    if (!static_cast<router::ModelUnit&>(*unit).idle()) return false;
  return true;
}

const std::string& Router::replica_id() const { return impl_->replica_id; }

}  // namespace ogai::serve
