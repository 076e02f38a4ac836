#include "serve/unknown_fields.h"

#include <algorithm>

namespace ogai::serve {
namespace {

constexpr std::string_view kChatFields[] = {
    "model", "messages", "max_completion_tokens", "max_tokens", "temperature", "top_p", "seed", "stop",
    "frequency_penalty", "presence_penalty", "logit_bias", "stream", "stream_options", "top_k", "min_p",
    "typical_p", "repetition_penalty", "ignore_eos", "logprobs", "top_logprobs", "n", "response_format",
    "add_generation_prompt", "continue_final_message", "functions", "audio",
    "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs", "tool_call_format", "function_call",
    "user", "metadata", "store", "service_tier"};

constexpr std::string_view kCompletionFields[] = {
    "model", "prompt", "max_completion_tokens", "max_tokens", "temperature", "top_p", "seed", "stop",
    "frequency_penalty", "presence_penalty", "logit_bias", "stream", "stream_options", "top_k", "min_p",
    "typical_p", "repetition_penalty", "ignore_eos", "logprobs", "echo", "n", "best_of", "suffix",
    "response_format", "user", "metadata", "store", "service_tier"};

}  // namespace

std::span<const std::string_view> known_fields(Endpoint endpoint) {
  if (endpoint == Endpoint::kChat) return kChatFields;
  return kCompletionFields;
}

std::vector<std::string> unknown_fields(const nlohmann::json& body, std::span<const std::string_view> known) {
  std::vector<std::string> unknown;
  if (!body.is_object()) return unknown;
  for (const auto& [key, value] : body.items())
    if (std::find(known.begin(), known.end(), key) == known.end()) unknown.push_back(key);
  return unknown;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

ApiError unknown_fields_error(const std::vector<std::string>& names) {
  return invalid_request(names.empty() ? "" : names.front(),
                         "unknown field" + std::string(names.size() > 1 ? "s" : "") + ": " + joined(names) +
                             " (this server refuses fields it does not read: --strict-requests)",
                         "unknown_field");
}

}  // namespace ogai::serve
