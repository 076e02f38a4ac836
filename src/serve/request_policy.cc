// The server-wide rules applied to every parsed generation request (ServerOptions::surface):
// unknown fields warned about once per request, or refused with --strict-requests; the default
// token cap (--max-tokens-default) for a request that sets none; response_format keywords not
// enforced (annotations) named in an x-ogai-unenforced header and a log line; OpenAI's sampling
// defaults (SurfaceOptions::sampling_defaults).
#include <algorithm>
#include <string_view>
#include <variant>

#include "base/log.h"
#include "ogai/sampling_fields.h"
#include "serve/common/response_format.h"
#include "serve/server_impl.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

// Whether the package lets a request set `field` (its generation.overrides, when declared).
bool overridable(const ModelInfo& info, std::string_view field) {
  return !info.overridable_fields || std::ranges::find(*info.overridable_fields, field) != info.overridable_fields->end();
}

// The server's value for each sampling field the request leaves out (those the package lets a
// request set); then the front ends' rule: sampled unless the temperature is 0 or the package's
// generation_config.json says do_sample false (an unset temperature resolves to the package's,
// else 1, in generate/request.cc), so `top_p: 1` alone changes nothing. A package that fixes
// do_sample keeps its own rule.
void apply_sampling_defaults(SamplingOptions& request, const SamplingOptions& server, const ModelInfo& info) {
  for (const SamplingField& field : kSamplingFields)
    std::visit([&](auto member) {
      if (!(request.*member) && overridable(info, field.name)) request.*member = server.*member;
    }, field.member);
  if (!request.seed && overridable(info, "seed")) request.seed = server.seed;
  request.default_do_sample = true;  // the front ends' default (docs/cli.md#sampling-default)
}

}  // namespace

void Server::Impl::apply_surface(ApiRequest& request, http::Exchange& exchange) {
  const SurfaceOptions& s = options.surface;
  metrics.count_media(request.media_images, request.media_audio);
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
  apply_sampling_defaults(request.options.sampling, s.sampling_defaults, model->info());
  if (!request.options.max_new_tokens && s.max_tokens_default) request.options.max_new_tokens = *s.max_tokens_default;
}

}  // namespace ogai::serve
