#include "serve/ops/auth.h"

#include <array>
#include <cctype>

#include "serve/webui/chat_page.h"

namespace ogai::serve {
namespace {

bool same_key(std::string_view given, std::string_view key) {
  if (key.empty()) return given.empty();
  unsigned char diff = given.size() == key.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ key[i % key.size()]);
  return diff == 0;
}

ApiError unauthorized(std::string message) {
  ApiError e = invalid_request("", std::move(message), "invalid_api_key");
  e.status = 401;
  return e;
}

// "Bearer KEY" (the scheme in any case) -> KEY; "" when the header is absent or another scheme.
std::string_view bearer_token(std::string_view header) {
  constexpr std::string_view kScheme = "bearer ";
  if (header.size() < kScheme.size()) return {};
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != kScheme[i]) return {};
  std::string_view token = header.substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

std::string_view presented_key(const http::Request& request) {
  std::string_view token = bearer_token(request.header("authorization"));
  if (token.empty()) token = request.header("x-api-key");  // as Anthropic's clients send it
  return token;
}

// The index of the key `request` carries, or -1. Every key is compared (the time does not tell
// which one matched).
int key_index(const http::Request& request, const std::vector<std::string>& api_keys) {
  const std::string_view token = presented_key(request);
  if (token.empty()) return -1;
  int found = -1;
  for (std::size_t i = 0; i < api_keys.size(); ++i)
    if (same_key(token, api_keys[i]) && found < 0) found = static_cast<int>(i);
  return found;
}

}  // namespace

bool is_probe_path(std::string_view path) {
  constexpr std::array<std::string_view, 3> kProbes = {"/health", "/ready", "/metrics"};
  for (std::string_view p : kProbes)
    if (path == p) return true;
  return false;
}

std::optional<ApiError> check_api_key(const http::Request& request, const std::vector<std::string>& api_keys,
                                      bool protect_probes) {
  if (api_keys.empty() || (!protect_probes && is_probe_path(request.path))) return std::nullopt;
  if (webui::is_page_path(request.path)) return std::nullopt;  // the page asks for the key itself
  if (presented_key(request).empty())
    return unauthorized("You didn't provide an API key. Send it as \"Authorization: Bearer KEY\" or \"x-api-key: "
                        "KEY\" (the key this server was started with: --api-key or OGAI_API_KEY).");
  if (key_index(request, api_keys) < 0) return unauthorized("Incorrect API key provided.");
  return std::nullopt;
}

std::string api_key_owner(const http::Request& request, const std::vector<std::string>& api_keys) {
  const int i = key_index(request, api_keys);
  return i < 0 ? std::string() : "key-" + std::to_string(i);
}

}  // namespace ogai::serve
