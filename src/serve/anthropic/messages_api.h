// Anthropic Messages API answers (POST /v1/messages; the request side is messages_request.h):
// the message object {id "msg_...", type "message", role "assistant", model, content blocks,
// stop_reason, stop_sequence, usage {input_tokens, output_tokens}}, its content blocks (thinking
// {thinking, signature ""}, text {text}, tool_use {id "toolu_...", name, input (an object)}),
// the stop reason (end_turn, max_tokens, stop_sequence, tool_use) and errors in Anthropic's shape
// {"type": "error", "error": {"type", "message"}}, the type following the HTTP status (400
// invalid_request_error, 401 authentication_error, 403 permission_error, 404 not_found_error, 413
// request_too_large, 429 rate_limit_error, 503 overloaded_error, other 5xx api_error).
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"

namespace ogai::serve {

struct MessagesMeta {
  std::string id;  // "msg_<hex>"
  std::string model;
  std::size_t input_tokens = 0;
};

// "toolu_<rest>" for ogai's "call_<rest>" (other ids unchanged).
std::string tool_use_id(std::string_view call_id);
// A tool call's arguments (JSON text) as the tool_use block's input object, its keys in the
// order the model wrote them ({} when not an object).
nlohmann::ordered_json tool_input(std::string_view arguments);

// `stop`: the stop sequence that ended the generation (stop_reasons's stop_sequence), if one did.
// "max_tokens" (kLength), "stop_sequence" (`stop` set), "tool_use" (calls made), else "end_turn".
const char* messages_stop_reason(FinishReason reason, const std::optional<std::string>& stop, bool tool_use);

// Which of `stops` ended `result` (finish reason kStop): the one that follows the text in the
// generated tokens' full text `full`; nullopt when none does (a stop token id ended it).
std::optional<std::string> matched_stop(const GenerationResult& result, std::string_view full,
                                        const std::vector<std::string>& stops);

// The whole message, its fields in Anthropic's order. `reply`: the parsed reply (reasoning, tool
// calls), or null (the text is the reply's only content).
nlohmann::ordered_json message_json(const MessagesMeta& meta, const GenerationResult& result, const ChatReply* reply,
                            const std::optional<std::string>& stop);
// The message as message_start carries it: no content, no stop reason, output_tokens 0.
nlohmann::json message_start_json(const MessagesMeta& meta);

// Anthropic's error type for an HTTP status.
const char* messages_error_type(int status);
// {"type": "error", "error": {"type", "message"}}.
nlohmann::json messages_error_json(const ApiError& error);

}  // namespace ogai::serve
