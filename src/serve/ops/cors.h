// Cross-origin requests from browsers (`ogai serve --cors-origin ORIGIN`, repeatable; "*" = any).
// A request whose Origin is allowed gets Access-Control-Allow-Origin (the origin itself, with
// Vary: Origin) and Access-Control-Expose-Headers (x-request-id, Retry-After) on its answer; a
// preflight (OPTIONS with Access-Control-Request-Method) is answered 204 with the methods (GET,
// POST, OPTIONS) and the request headers the browser asked for, cached 10 minutes. An origin
// that is not allowed gets no Access-Control-* header, so the browser refuses the answer. No
// credentials mode: the API key travels in the Authorization header, never in cookies.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "serve/http/message.h"

namespace ogai::serve {

struct CorsPolicy {
  std::vector<std::string> origins;  // exact origins ("https://app.example") or "*"; empty = CORS off

  bool allows(std::string_view origin) const;
};

// The header fields `request`'s answer carries (none when CORS is off or its origin is not allowed).
std::vector<http::Field> cors_fields(const CorsPolicy& policy, const http::Request& request);

// OPTIONS with Access-Control-Request-Method.
bool is_preflight(const http::Request& request);
// 204; when the origin is allowed, with Access-Control-Allow-Methods, -Allow-Headers and -Max-Age
// (Allow-Origin is one of the cors_fields(), which every answer carries).
http::Response preflight_response(const CorsPolicy& policy, const http::Request& request);

}  // namespace ogai::serve
