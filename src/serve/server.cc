// Server lifecycle (bind, run, stop), the routes other than generation, and the handlers for
// errors the HTTP layer detects itself (unknown route, wrong method, body too large, exceptions).
#include "serve/server.h"

#include <ctime>
#include <thread>

#include "base/error.h"
#include "serve/connection_drain.h"
#include "serve/server_impl.h"

namespace ogai::serve {
namespace {

constexpr int kListenBacklog = 1024;     // connections waiting to be accepted (the kernel may cap it)
constexpr int kKeepAliveRequests = 100;  // requests per connection before the server closes it

struct Route {
  const char* pattern;  // httplib regex
  const char* label;    // metrics label
  const char* method;   // the one allowed method
};
constexpr Route kRoutes[] = {
    {"/health", "/health", "GET"},
    {"/metrics", "/metrics", "GET"},
    {"/v1/models", "/v1/models", "GET"},
    {"/v1/models/(.+)", "/v1/models/{id}", "GET"},
    {"/v1/chat/completions", "/v1/chat/completions", "POST"},
    {"/v1/completions", "/v1/completions", "POST"},
};

std::string endpoint_label(const std::string& path) {
  for (const Route& r : kRoutes)
    if (path == r.pattern) return r.label;
  if (path.starts_with("/v1/models/")) return "/v1/models/{id}";
  return "other";
}

std::string default_model_name(const Model& model) {
  std::filesystem::path package = model.info().package;
  std::string name = package.filename().string();
  if (name.empty()) name = package.parent_path().filename().string();
  return name.empty() ? "ogai" : name;
}

ApiError http_error(const httplib::Request& req, int status, std::size_t max_body) {
  ApiError e;
  e.status = status;
  switch (status) {
    case 404: e.code = "not_found"; e.message = "unknown route: " + req.method + " " + req.path; break;
    case 413:
      e.code = "request_too_large";
      e.message = "the request body is larger than the limit of " + std::to_string(max_body) + " bytes";
      if (req.get_header_value("Content-Type").starts_with("application/x-www-form-urlencoded"))
        e.message = "form-urlencoded request bodies are limited to " +
                    std::to_string(CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH) +
                    " bytes; send the JSON body with Content-Type: application/json";
      break;
    case 400: e.message = "malformed HTTP request"; break;
    default: e.message = "HTTP error " + std::to_string(status);
  }
  if (status >= 500) e.type = "server_error";
  return e;
}

void check_options(const ServerOptions& o) {
  if (o.port < 0 || o.port > 65535) fail(ErrorCode::kInvalidArgument, "port", "{} is not in [0, 65535]", o.port);
  if (o.max_concurrent < 1 || o.max_concurrent > kMaxConcurrentLimit)
    fail(ErrorCode::kInvalidArgument, "max_concurrent", "{} is not in [1, {}]", o.max_concurrent, kMaxConcurrentLimit);
  if (o.queue < 0 || o.queue > kQueueLimit)
    fail(ErrorCode::kInvalidArgument, "queue", "{} is not in [0, {}]", o.queue, kQueueLimit);
  if (o.max_body_bytes == 0) fail(ErrorCode::kInvalidArgument, "max_body_bytes", "must be at least 1");
}

ServerOptions checked(ServerOptions o) {
  check_options(o);
  return o;
}

}  // namespace

void write_error(httplib::Response& res, const ApiError& error) {
  res.status = error.status;
  res.set_content(to_text(error_json(error)), "application/json");
}

Server::Impl::Impl(std::shared_ptr<const Model> m, ServerOptions o)
    : model(std::move(m)), options(checked(std::move(o))), scheduler(model, options.max_concurrent, options.queue, options.engine),
      id_rng(std::random_device{}()) {
  name = options.model_name.empty() ? default_model_name(*model) : options.model_name;
  created = static_cast<std::int64_t>(std::time(nullptr));
  // Every admitted request holds one HTTP thread while it waits or runs; the rest answer health,
  // metrics and bad requests at once.
  const std::size_t threads = static_cast<std::size_t>(options.max_concurrent + options.queue + 8);
  http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http.set_payload_max_length(options.max_body_bytes);
  // httplib's default also sets SO_REUSEPORT, which would let a second server bind the same port
  // and silently take half of its connections; only SO_REUSEADDR (restart past TIME_WAIT) here.
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  http.set_tcp_nodelay(true);  // a response's header and body writes must not wait for the client's delayed ACK
  http.set_keep_alive_max_count(kKeepAliveRequests);
  add_routes();
  add_method_guards();
  add_error_handlers();
}

void Server::Impl::add_routes() {
  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    if (scheduler.stopping()) res.status = 503;
    res.set_content(scheduler.stopping() ? R"({"status":"stopping"})" : R"({"status":"ok"})", "application/json");
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.prometheus_text(scheduler.running(), scheduler.queued(), scheduler.engine_stats()),
                    "text/plain; version=0.0.4; charset=utf-8");
  });
  http.Get("/v1/models", [this](const httplib::Request& req, httplib::Response& res) { answer_models(req, res); });
  http.Get("/v1/models/(.+)", [this](const httplib::Request& req, httplib::Response& res) { answer_models(req, res); });
  http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    handle_generation(Endpoint::kChat, req, res);
  });
  http.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    handle_generation(Endpoint::kCompletion, req, res);
  });
}

void Server::Impl::answer_models(const httplib::Request& req, httplib::Response& res) const {
  const std::int64_t context = model->info().context_length;
  if (req.matches.size() < 2) {
    res.set_content(to_text(model_list_json(name, created, context)), "application/json");
    return;
  }
  if (req.matches[1].str() != name) return write_error(res, model_not_found(req.matches[1].str(), name));
  res.set_content(to_text(model_json(name, created, context)), "application/json");
}

// A known route asked with another method: 405 with the Allow header.
void Server::Impl::add_method_guards() {
  for (const Route& r : kRoutes) {
    const std::string allowed = r.method;
    auto refuse = [allowed](const httplib::Request& req, httplib::Response& res) {
      ApiError e = invalid_request("", req.method + " is not allowed on " + req.path + "; use " + allowed,
                                   "method_not_allowed");
      e.status = 405;
      res.set_header("Allow", allowed);
      write_error(res, e);
    };
    if (allowed != "GET") http.Get(r.pattern, refuse);
    if (allowed != "POST") http.Post(r.pattern, refuse);
    http.Put(r.pattern, refuse);
    http.Patch(r.pattern, refuse);
    http.Delete(r.pattern, refuse);
    http.Options(r.pattern, refuse);
  }
}

void Server::Impl::add_error_handlers() {
  httplib::Server::HandlerWithResponse on_error = [this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;  // a handler wrote it
    const int status = res.status;
    write_error(res, http_error(req, status, options.max_body_bytes));
    return httplib::Server::HandlerResponse::Handled;
  };
  http.set_error_handler(std::move(on_error));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    write_error(res, internal_error(what));
  });
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response&) {
    drain.begin(req.remote_port);
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {  // after the response
    drain.end(req.remote_port);
    metrics.count_request(endpoint_label(req.path), res.status);
  });
}

Server::Server(std::shared_ptr<const Model> model, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), std::move(options))) {}

Server::~Server() {
  stop();
  impl_->scheduler.join();
  impl_->http.close_unused_listener();  // bound, never run
}

const std::string& Server::model_name() const { return impl_->name; }

int Server::bind() {
  const ServerOptions& o = impl_->options;
  int port = o.port == 0 ? impl_->http.bind_to_any_port(o.host) : (impl_->http.bind_to_port(o.host, o.port) ? o.port : -1);
  if (port < 0) fail(ErrorCode::kRuntime, o.host + ":" + std::to_string(o.port), "cannot listen there (in use, or not a local address)");
  impl_->http.set_listen_backlog(kListenBacklog);
  impl_->port = port;
  return port;
}

void Server::run() {
  {
    std::lock_guard lock(impl_->lifecycle);
    if (impl_->stop_requested) return;
    impl_->serving = true;
  }
  impl_->http.listen_after_bind();  // returns after stop(), its threads joined
  impl_->listen_returned = true;
  impl_->scheduler.shutdown();
  impl_->scheduler.join();
}

void Server::stop() {
  {
    std::lock_guard lock(impl_->lifecycle);
    if (impl_->stop_requested) return;
    impl_->stop_requested = true;
    if (!impl_->serving) {
      impl_->scheduler.shutdown();
      return;
    }
  }
  impl_->scheduler.shutdown();  // queued -> 503, running generations cancel at their next token
  // run() may not have reached listen yet: httplib's stop() only acts on a running server.
  while (!impl_->http.is_running() && !impl_->listen_returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->http.stop();
  impl_->drain.close_idle(impl_->port);  // idle keep-alive connections end now, not at their timeout
}

}  // namespace ogai::serve
