// API-key authentication (`ogai serve --api-key KEY`): a request carries the key as
// "Authorization: Bearer KEY", as OpenAI clients send it, or as "x-api-key: KEY", as Anthropic's
// clients do. Without a key configured every request passes. The probes (/health, /ready,
// /metrics) pass without the key unless they are protected (Kubernetes probes and Prometheus
// scrapers rarely carry one). The chat page's files (webui/chat_page.h) always pass: the page asks
// its user for the key and sends it with the API calls it makes. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "serve/common/api_error.h"
#include "serve/http/message.h"

namespace ogai::serve {

// /health, /ready, /metrics.
bool is_probe_path(std::string_view path);

// nullopt when `request` may pass; else the 401 to answer (OpenAI's body: type
// invalid_request_error, code invalid_api_key, a message saying whether the key was missing or
// wrong, never echoing it). The comparison takes the same time wherever the keys differ.
std::optional<ApiError> check_api_key(const http::Request& request, const std::vector<std::string>& api_keys,
                                      bool protect_probes);

// Who sent `request` among `api_keys`: an opaque tag of the key it carries ("key-N"), "" when no
// keys are configured or it carries none of them. Stored responses are scoped by it.
std::string api_key_owner(const http::Request& request, const std::vector<std::string>& api_keys);

}  // namespace ogai::serve
