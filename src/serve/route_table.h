// The server's route table and the small pieces of HTTP every front (the one-model Server, the
// many-model Router) shares: which route a path is (with or without its /v1 prefix), its metrics
// label, percent-decoding of path ids, plain JSON answers, 405 and the transport's own failures.
// Pure functions over constant tables; thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "serve/http/exchange.h"
#include "serve/http/message.h"

namespace ogai::serve {

class RequestGate;

struct Route {
  const char* path;    // exact, or a prefix when `prefix`
  const char* label;   // metrics label
  const char* method;  // the one allowed method
  bool prefix = false; // "/v1/models/" + a non-empty id
};

// The route `path` (already routed_path()) is, or nullptr.
const Route* find_route(const std::string& path);
// The path a request is routed by: a /v1 route asked without its prefix ("/chat/completions",
// "/models/ID") is that route, as llama-server answers both; any other path is itself.
std::string routed_path(const std::string& path);
// "%20" -> " " (as clients encode a model id in a path); a malformed escape stays as it is.
std::string percent_decoded(std::string_view s);
// The metrics label of a request path: its route's label, else "other".
std::string endpoint_label(const std::string& path);
// A 200 answer with `body`.
http::Response text_response(std::string body, std::string content_type = "application/json");
// A known route asked with another method: 405 with the Allow header.
http::Response method_not_allowed(const http::Request& req, const Route& route);
// The first answers every front gives a request past its gate: the chat page (when `webui` and the
// path is the page's), 404 for an unknown path, 405 for a known path asked with another method.
// Returns the route and the routed path, or nothing when the request was answered here.
struct MatchedRoute {
  const Route* route;
  std::string path;  // routed_path() of the request's path
};
std::optional<MatchedRoute> match_route(http::Exchange& exchange, bool webui);

// Runs `answer` when `gate` admits the request (else the gate has answered it); an exception
// `answer` lets out becomes a 500 naming it, so no route can leave a request unanswered.
void guarded_route(RequestGate& gate, const std::shared_ptr<http::Exchange>& exchange,
                      const std::function<void()>& answer);

// An error the transport detected itself, as an OpenAI-style error answer.
http::Response transport_failure_response(const http::Failure& failure);

}  // namespace ogai::serve
