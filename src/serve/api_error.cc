#include "serve/api_error.h"

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

bool is_client_error(ErrorCode code) {
  return code == ErrorCode::kInvalidArgument || code == ErrorCode::kUnsupported || code == ErrorCode::kParse;
}

}  // namespace

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

ApiError model_not_found(const std::string& asked, const std::string& served) {
  ApiError e = invalid_request("model", "the model '" + asked + "' does not exist; this server serves '" + served + "'",
                               "model_not_found");
  e.status = 404;
  return e;
}

ApiError internal_error(std::string message) {
  ApiError e;
  e.status = 500;
  e.type = "server_error";
  e.message = std::move(message);
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
  std::string param = request_param(error.where(), endpoint);
  std::string message = param.empty() ? error.message() : param + ": " + error.message();
  if (error.code() == ErrorCode::kUnsupported) return unsupported(std::move(param), std::move(message));
  return invalid_request(std::move(param), std::move(message));
}

nlohmann::json error_json(const ApiError& error) {
  auto nullable = [](const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); };
  return {{"error",
           {{"message", error.message}, {"type", error.type}, {"param", nullable(error.param)},
            {"code", nullable(error.code)}}}};
}

}  // namespace ogai::serve
