#include "serve/ops/cors.h"

namespace ogai::serve {

bool CorsPolicy::allows(std::string_view origin) const {
  if (origin.empty()) return false;
  for (const std::string& o : origins)
    if (o == "*" || o == origin) return true;
  return false;
}

std::vector<http::Field> cors_fields(const CorsPolicy& policy, const http::Request& request) {
  const std::string_view origin = request.header("origin");
  if (!policy.allows(origin)) return {};
  return {{"Access-Control-Allow-Origin", std::string(origin)},
          {"Vary", "Origin"},
          {"Access-Control-Expose-Headers", "x-request-id, Retry-After"}};
}

bool is_preflight(const http::Request& request) {
  return request.method == "OPTIONS" && !request.header("access-control-request-method").empty();
}

http::Response preflight_response(const CorsPolicy& policy, const http::Request& request) {
  http::Response r;
  r.status = 204;
  r.content_type.clear();
  if (!policy.allows(request.header("origin"))) return r;
  r.fields.emplace_back("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  const std::string_view asked = request.header("access-control-request-headers");
  r.fields.emplace_back("Access-Control-Allow-Headers", asked.empty() ? "authorization, content-type" : std::string(asked));
  r.fields.emplace_back("Access-Control-Max-Age", "600");
  return r;
}

}  // namespace ogai::serve
