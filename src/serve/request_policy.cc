// The server-wide rules applied to every parsed generation request (ServerOptions::surface):
// unknown fields warned about once per request, or refused with --strict-requests; the default
// token cap (--max-tokens-default) for a request that sets none; response_format keywords not
// enforced (annotations) named in an x-ogai-unenforced header and a log line.
#include "base/log.h"
#include "serve/response_format.h"
#include "serve/server_impl.h"
#include "serve/unknown_fields.h"

namespace ogai::serve {

void Server::Impl::apply_surface(ApiRequest& request, http::Exchange& exchange) const {
  const SurfaceOptions& s = options.surface;
  if (!request.unknown_fields.empty()) {
    if (s.strict_requests) throw unknown_fields_error(request.unknown_fields);
    const http::Request& r = exchange.request();
    log(LogLevel::kWarn, "serve: request {} ({} {}): ignoring unknown fields: {}", exchange.request_id(), r.method,
        r.path, joined(request.unknown_fields));
  }
  if (!request.unenforced.empty()) {  // where the schema stops being fully enforced
    const std::string named = unenforced_header(request.unenforced);
    log(LogLevel::kInfo, "serve: request {}: response_format not fully enforced: {}", exchange.request_id(), named);
    exchange.add_field({"x-ogai-unenforced", named});
  }
  if (!request.options.max_new_tokens && s.max_tokens_default) request.options.max_new_tokens = *s.max_tokens_default;
}

}  // namespace ogai::serve
