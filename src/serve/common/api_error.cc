#include "serve/common/api_error.h"

#include <utility>

namespace ogai::serve {
namespace {

// "request.logit_bias[5]" -> "logit_bias"; "max_new_tokens" -> "max_tokens"; "prompt" -> the
// endpoint's prompt field.
std::string request_param(std::string where, Endpoint endpoint) {
  constexpr std::string_view kPrefix = "request.";
  if (where.starts_with(kPrefix)) where.erase(0, kPrefix.size());
  if (auto bracket = where.find('['); bracket != std::string::npos) where.erase(bracket);
  if (where == "max_new_tokens") return "max_tokens";
  if (where == "prompt") return endpoint == Endpoint::kChat ? "messages" : "prompt";
  return where;
}

// Whether an absolute path may start at text[i]: a '/' at the start or after a space, quote,
// bracket, '=' or ',' (not "//" after "http:").
bool path_starts(std::string_view text, std::size_t i) {
  if (text[i] != '/') return false;
  return i == 0 || std::string_view(" \t\n'\"([{=,").find(text[i - 1]) != std::string_view::npos;
}

bool is_client_error(ErrorCode code) {
  return code == ErrorCode::kInvalidArgument || code == ErrorCode::kUnsupported || code == ErrorCode::kParse;
}

}  // namespace

std::string without_absolute_paths(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (!path_starts(text, i)) {
      out += text[i++];
      continue;
    }
    std::size_t end = text.find_first_of(" \t\n'\")]},", i);
    if (end == std::string_view::npos) end = text.size();
    std::string_view path = text.substr(i, end - i);
    std::string_view last = path.substr(path.find_last_of('/') + 1);
    out += last.empty() ? std::string_view("...") : last;
    i = end;
  }
  return out;
}

ApiError invalid_request(std::string param, std::string message, std::string code) {
  ApiError e;
  e.status = 400;
  e.param = std::move(param);
  e.message = std::move(message);
  e.code = std::move(code);
  return e;
}

ApiError unsupported(std::string param, std::string message) {
  return invalid_request(std::move(param), std::move(message), "unsupported");
}

namespace {

// The longest prefix of `s` within `max` bytes that ends at a UTF-8 character boundary.
std::string_view utf8_prefix(std::string_view s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

std::string bounded(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  return std::string(utf8_prefix(s, max)) + "... (" + std::to_string(s.size()) + " bytes in all)";
}

}  // namespace

std::string quote_value(std::string_view value, std::size_t max) {
  if (value.size() <= max) return "'" + std::string(value) + "'";
  return "'" + std::string(utf8_prefix(value, max)) + "...' (" + std::to_string(value.size()) + " bytes)";
}

ApiError model_not_found(const std::string& asked, const std::string& served) {
  ApiError e = invalid_request("model", "the model " + quote_value(asked) + " does not exist; this server serves " +
                               quote_value(served), "model_not_found");
  e.status = 404;
  return e;
}

ApiError internal_error(std::string message) {
  ApiError e;
  e.status = 500;
  e.type = "server_error";
  e.message = without_absolute_paths(message);
  return e;
}

ApiError shutting_down() {
  ApiError e;
  e.status = 503;
  e.type = "server_error";
  e.code = "shutting_down";
  e.message = "the server is shutting down";
  return e;
}

ApiError from_engine_error(const Error& error, Endpoint endpoint) {
  if (!is_client_error(error.code())) return internal_error(error.what());
  const bool file = error.where().starts_with('/');  // a package file, not a request field
  std::string param = file ? std::string() : request_param(error.where(), endpoint);
  std::string named = file ? without_absolute_paths(error.where()) : param;
  std::string message = without_absolute_paths(named.empty() ? error.message() : named + ": " + error.message());
  if (error.code() == ErrorCode::kUnsupported) return unsupported(std::move(param), std::move(message));
  return invalid_request(std::move(param), std::move(message));
}

nlohmann::json error_json(const ApiError& error) {
  auto nullable = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"error",
           {{"message", bounded(error.message, kMaxErrorMessageBytes)}, {"type", error.type},
            {"param", nullable(bounded(error.param, kMaxErrorParamBytes))},
            {"code", nullable(error.code)}}}};
}

}  // namespace ogai::serve
