// The route table (route_table.h).
#include "serve/route_table.h"

#include <cstring>

#include "serve/common/api_error.h"
#include "serve/ops/request_gate.h"
#include "serve/server_impl.h"
#include "serve/webui/chat_page.h"

namespace ogai::serve {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr Route kRoutes[] = {
    {"/health", "/health", "GET"},
    {"/ready", "/ready", "GET"},
    {"/metrics", "/metrics", "GET"},
    {"/v1/models", "/v1/models", "GET"},
    {"/v1/models/", "/v1/models/{id}", "GET", true},
    {"/v1/chat/completions", "/v1/chat/completions", "POST"},
    {"/v1/completions", "/v1/completions", "POST"},
    {"/v1/responses", "/v1/responses", "POST"},
    {"/v1/responses/", "/v1/responses/{id}", "GET", true},
    {"/v1/messages", "/v1/messages", "POST"},
    {"/v1/messages/count_tokens", "/v1/messages/count_tokens", "POST"},
    {"/v1/embeddings", "/v1/embeddings", "POST"},
    {"/v1/audio/transcriptions", "/v1/audio/transcriptions", "POST"},
    {"/v1/audio/translations", "/v1/audio/translations", "POST"},
    {"/v1/audio/speech", "/v1/audio/speech", "POST"},
    {"/v1/images/generations", "/v1/images/generations", "POST"},
    {"/version", "/version", "GET"},
    {"/tokenize", "/tokenize", "POST"},
    {"/detokenize", "/detokenize", "POST"},
};

}  // namespace

const Route* find_route(const std::string& path) {
  for (const Route& r : kRoutes)
    if (r.prefix ? path.size() > std::strlen(r.path) && path.starts_with(r.path) : path == r.path) return &r;
  return nullptr;
}

std::string routed_path(const std::string& path) {
  if (path.starts_with("/v1/") || find_route(path) != nullptr) return path;
  std::string v1 = "/v1" + path;
  return find_route(v1) != nullptr ? v1 : path;
}

std::string percent_decoded(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const int hi = s[i] == '%' && i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
    const int lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
    if (lo < 0) {
      out += s[i];
      continue;
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string endpoint_label(const std::string& path) {
  const Route* r = find_route(routed_path(path));
  return r ? r->label : "other";
}

http::Response text_response(std::string body, std::string content_type) {
  http::Response r;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

http::Response method_not_allowed(const http::Request& req, const Route& route) {
  ApiError e = invalid_request("", req.method + " is not allowed on " + req.path + "; use " + route.method,
                               "method_not_allowed");
  e.status = 405;
  http::Response r = error_response(e, req);
  r.fields.emplace_back("Allow", route.method);
  return r;
}

http::Response transport_failure_response(const http::Failure& failure) {
  ApiError e;
  e.status = failure.status;
  e.code = failure.code;
  e.message = failure.message;
  if (failure.status >= 500) e.type = "server_error";
  http::Response r = error_response(e);
  if (failure.code == "too_many_connections") r.fields.emplace_back("Retry-After", "1");
  return r;
}

std::optional<MatchedRoute> match_route(http::Exchange& exchange, bool webui) {
  const http::Request& req = exchange.request();
  if (webui && webui::is_page_path(req.path)) {
    exchange.respond(webui::page_response(req));
    return std::nullopt;
  }
  std::string path = routed_path(req.path);
  const Route* r = find_route(path);
  if (r == nullptr) {
    ApiError e = invalid_request("", "unknown route: " + req.method + " " + req.path, "not_found");
    e.status = 404;
    exchange.respond(error_response(e, req));
    return std::nullopt;
  }
  const bool get = req.method == "GET" || req.method == "HEAD";
  if (r->method != std::string_view(get ? "GET" : req.method)) {
    exchange.respond(method_not_allowed(req, *r));
    return std::nullopt;
  }
  return MatchedRoute{r, std::move(path)};
}

void guarded_route(RequestGate& gate, const std::shared_ptr<http::Exchange>& exchange,
                      const std::function<void()>& answer) {
  try {
    if (gate.admit(*exchange)) answer();
  } catch (const std::exception& e) {
    exchange->respond(error_response(internal_error(e.what()), exchange->request()));
  }
}

}  // namespace ogai::serve
