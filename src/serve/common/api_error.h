// ApiError: a failed HTTP request as OpenAI's API reports it, an HTTP status and the body
// {"error": {"message", "type", "param", "code"}}. Request parsing and the server throw it; the
// route catches it and writes it, so every bad request gets a 4xx/5xx answer and the server keeps
// serving. Engine errors (ogai::Error) are mapped here, at the one boundary where serve calls the
// engine. Plain value type; thread-compatible.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ogai/error.h"

namespace ogai::serve {

// The two generation endpoints; they name request fields differently (messages vs prompt).
enum class Endpoint { kChat, kCompletion };

struct ApiError : std::exception {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // the request field at fault; empty = null
  std::string code;   // a machine-readable reason; empty = null

  const char* what() const noexcept override { return message.c_str(); }
};

// `value` quoted for an error message: whole up to `max` bytes, else its first `max` bytes (cut at
// a character boundary) and its length: 'abc...' (1048576 bytes). Errors never echo more.
std::string quote_value(std::string_view value, std::size_t max = 200);
// Bounds of an error body (error_json): longer messages and params are cut as quote_value() cuts.
inline constexpr std::size_t kMaxErrorMessageBytes = 2048;
inline constexpr std::size_t kMaxErrorParamBytes = 200;

// 400 invalid_request_error naming `param`.
ApiError invalid_request(std::string param, std::string message, std::string code = {});
// A valid request using something ogai does not implement (400, code "unsupported").
ApiError unsupported(std::string param, std::string message);
// 404 model_not_found: `asked` is not the model this server serves.
ApiError model_not_found(const std::string& asked, const std::string& served);
// 500 server_error. Absolute paths in `message` are cut to their last component.
ApiError internal_error(std::string message);
// `text` with each absolute path (a '/' at the start or after a space, quote, bracket, '=' or ','
// up to the next space, quote or closing bracket) replaced by its last component: messages that
// reach HTTP clients never show the server's file system. O(text).
std::string without_absolute_paths(std::string_view text);
// 503: the server is stopping and no longer takes or finishes work.
ApiError shutting_down();

// Maps an engine error raised while preparing or generating a request of `endpoint`:
// invalid arguments, unsupported requests and unreadable input -> 400 with the engine's field
// translated to the OpenAI request field (request.temperature -> temperature, max_new_tokens ->
// max_tokens, prompt -> messages/prompt); anything else -> 500.
ApiError from_engine_error(const Error& error, Endpoint endpoint);

// {"error": {"message", "type", "param", "code"}}.
nlohmann::json error_json(const ApiError& error);

}  // namespace ogai::serve
