#include "serve/common/unknown_fields.h"

#include <algorithm>

#include "ogai/sampling_fields.h"

namespace ogai::serve {
namespace {

// Besides these, every ogai/sampling_fields.h name (with_sampling_fields).
constexpr std::string_view kChatFields[] = {
    "model", "messages", "max_completion_tokens", "max_tokens", "seed", "stop", "logit_bias", "stream",
    "stream_options", "ignore_eos", "logprobs", "top_logprobs", "n", "response_format",
    "add_generation_prompt", "continue_final_message", "functions", "audio",
    "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs", "reasoning_effort",
    "tool_call_format", "function_call",
    "user", "metadata", "store", "service_tier"};

constexpr std::string_view kCompletionFields[] = {
    "model", "prompt", "max_completion_tokens", "max_tokens", "seed", "stop", "logit_bias", "stream",
    "stream_options", "ignore_eos", "logprobs", "echo", "n", "best_of", "suffix",
    "response_format", "user", "metadata", "store", "service_tier"};

std::vector<std::string_view> with_sampling_fields(std::span<const std::string_view> fields) {
  std::vector<std::string_view> all(fields.begin(), fields.end());
  for (const SamplingField& field : kSamplingFields) all.push_back(field.name);
  return all;
}

}  // namespace

std::span<const std::string_view> known_fields(Endpoint endpoint) {
  static const std::vector<std::string_view> chat = with_sampling_fields(kChatFields);
  static const std::vector<std::string_view> completion = with_sampling_fields(kCompletionFields);
  if (endpoint == Endpoint::kChat) return chat;
  return completion;
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
