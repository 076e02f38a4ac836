#include "serve/anthropic/messages_api.h"

#include "base/error.h"
#include "base/json_ordered.h"
#include "serve/openai/api_response.h"

namespace ogai::serve {
namespace {

constexpr std::size_t kMaxErrorBytes = kMaxErrorMessageBytes;

using Ordered = nlohmann::ordered_json;

nlohmann::json usage(const MessagesMeta& meta, std::size_t output_tokens) {
  return {{"input_tokens", meta.input_tokens}, {"output_tokens", output_tokens}};
}

Ordered content_blocks(const GenerationResult& result, const ChatReply* reply) {
  Ordered blocks = Ordered::array();
  if (reply == nullptr) {
    if (!result.text.empty()) blocks.push_back({{"type", "text"}, {"text", result.text}});
    return blocks;
  }
  if (!reply->reasoning_content.empty())
    blocks.push_back({{"type", "thinking"}, {"thinking", reply->reasoning_content}, {"signature", ""}});
  if (!reply->content.empty()) blocks.push_back({{"type", "text"}, {"text", reply->content}});
  for (const ToolCall& call : reply->tool_calls)
    blocks.push_back({{"type", "tool_use"}, {"id", tool_use_id(call.id)}, {"name", call.name},
                      {"input", tool_input(call.arguments)}});
  return blocks;
}

}  // namespace

std::string tool_use_id(std::string_view call_id) {
  constexpr std::string_view kCall = "call_";
  if (call_id.starts_with(kCall)) return "toolu_" + std::string(call_id.substr(kCall.size()));
  return std::string(call_id);
}

Ordered tool_input(std::string_view arguments) {
  try {
    Ordered input = parse_ordered_json(arguments, "tool call arguments");
    return input.is_object() ? input : Ordered::object();
  } catch (const Error&) {
    return Ordered::object();
  }
}

const char* messages_stop_reason(FinishReason reason, const std::optional<std::string>& stop, bool tool_use) {
  if (reason == FinishReason::kLength) return "max_tokens";
  if (stop) return "stop_sequence";
  if (tool_use) return "tool_use";
  return "end_turn";
}

std::optional<std::string> matched_stop(const GenerationResult& result, std::string_view full,
                                        const std::vector<std::string>& stops) {
  if (result.finish_reason != FinishReason::kStop || stops.empty()) return std::nullopt;
  // The text is the full text cut before the stop string; the earliest match past it is the one.
  const std::size_t from = full.starts_with(result.text) ? result.text.size() : 0;
  std::optional<std::string> best;
  std::size_t best_at = std::string_view::npos;
  for (const std::string& s : stops) {
    const std::size_t at = full.find(s, from);
    if (at < best_at) best_at = at, best = s;
  }
  return best;
}

Ordered message_json(const MessagesMeta& meta, const GenerationResult& result, const ChatReply* reply,
                     const std::optional<std::string>& stop) {
  const bool calls = reply != nullptr && !reply->tool_calls.empty();
  return {{"id", meta.id}, {"type", "message"}, {"role", "assistant"}, {"model", meta.model},
          {"content", content_blocks(result, reply)},
          {"stop_reason", messages_stop_reason(result.finish_reason, stop, calls)},
          {"stop_sequence", stop ? Ordered(*stop) : Ordered(nullptr)},
          {"usage", {{"input_tokens", meta.input_tokens}, {"output_tokens", result.ids.size()}}}};
}

nlohmann::json message_start_json(const MessagesMeta& meta) {
  return {{"id", meta.id}, {"type", "message"}, {"role", "assistant"}, {"model", meta.model},
          {"content", nlohmann::json::array()}, {"stop_reason", nullptr}, {"stop_sequence", nullptr},
          {"usage", usage(meta, 0)}};
}

const char* messages_error_type(int status) {
  switch (status) {
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

nlohmann::json messages_error_json(const ApiError& error) {
  std::string message = error.message;
  if (message.size() > kMaxErrorBytes) message = quote_value(message, kMaxErrorBytes);
  return {{"type", "error"}, {"error", {{"type", messages_error_type(error.status)}, {"message", message}}}};
}

}  // namespace ogai::serve
