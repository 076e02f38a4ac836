#include "serve/openai/parse_prompt.h"

#include <climits>

#include "serve/common/json_fields.h"
#include "serve/common/request_fields.h"
#include "serve/openai/chat_messages.h"

namespace ogai::serve {
namespace {

void refuse_chat_features(const FieldReader& f) {
  if (f.get("audio") != nullptr) throw unsupported("audio", "audio output is not supported");
}

// suffix: fill-in-the-middle needs a template that defines it; no ogai package has one. Null or
// "" is no suffix.
void refuse_completion_features(const FieldReader& f) {
  const RequestJson* suffix = f.get("suffix");
  if (suffix != nullptr && !suffix->is_null() && !(suffix->is_string() && suffix->get<std::string>().empty()))
    throw unsupported("suffix", "suffix: fill-in-the-middle is not supported by this model (its template defines no "
                                "insertion format); leave suffix out");
}

// best_of: candidates per prompt, n <= best_of <= kMaxBestOf; not with stream (OpenAI's rule).
void read_best_of(const FieldReader& f, ApiRequest& request) {
  auto best_of = f.integer("best_of");
  if (!best_of) return;
  if (*best_of < 1 || *best_of > kMaxBestOf)
    throw invalid_request("best_of", "best_of: " + std::to_string(*best_of) + " is not in [1, " +
                                         std::to_string(kMaxBestOf) + "]");
  request.best_of = static_cast<int>(*best_of);
}

// Chat: "logprobs": true, "top_logprobs": 0..20 (only with logprobs).
void read_chat_logprobs(const FieldReader& f, GenerationOptions& options) {
  const bool asked = f.boolean("logprobs").value_or(false);
  const auto top = f.integer("top_logprobs");
  if (top && !asked) throw invalid_request("top_logprobs", "top_logprobs: needs \"logprobs\": true");
  if (top && (*top < 0 || *top > kMaxChatTopLogprobs))
    throw invalid_request("top_logprobs", "top_logprobs: " + std::to_string(*top) + " is out of range; expected 0 to " +
                                              std::to_string(kMaxChatTopLogprobs));
  if (asked) options.logprobs = static_cast<int>(top.value_or(0));
}

// Completions (legacy): "logprobs": N, 0..5 alternatives per token.
void read_completion_logprobs(const FieldReader& f, GenerationOptions& options) {
  const auto n = f.integer("logprobs");
  if (!n) return;
  if (*n < 0 || *n > kMaxCompletionLogprobs)
    throw invalid_request("logprobs", "logprobs: " + std::to_string(*n) + " is out of range; expected 0 to " +
                                          std::to_string(kMaxCompletionLogprobs));
  options.logprobs = static_cast<int>(*n);
}

std::vector<std::int32_t> read_ids(const RequestJson& array, const std::string& param) {
  return read_token_ids(array, "prompt", param);
}

// One entry of an array of prompts: a string or a non-empty array of token ids.
CompletionPrompt read_prompt_entry(const RequestJson& entry, std::size_t i) {
  const std::string param = element_param("prompt", i);
  if (entry.is_string()) return {entry.get<std::string>(), {}};
  if (!entry.is_array())
    throw invalid_request("prompt", param + ": expected a string or an array of token ids, got " + json_preview(entry));
  if (entry.empty()) throw invalid_request("prompt", param + ": the token id array is empty");
  return {std::nullopt, read_ids(entry, param)};
}

// add_generation_prompt (default true unless continue_final_message) and continue_final_message.
void read_chat_rendering(const FieldReader& f, ApiRequest& request) {
  const auto add = f.boolean("add_generation_prompt");
  request.continue_final_message = f.boolean("continue_final_message").value_or(false);
  if (request.continue_final_message && add.value_or(false))
    throw invalid_request("continue_final_message",
                          "continue_final_message: cannot be combined with \"add_generation_prompt\": true (the "
                          "prompt either opens a new assistant turn or continues the last message)");
  request.add_generation_prompt = add.value_or(!request.continue_final_message);
}

}  // namespace

void read_chat_prompt(const FieldReader& fields, const JsonLimits& limits, ApiRequest& request) {
  const RequestJson* messages = fields.get("messages");
  if (messages == nullptr) throw invalid_request("messages", "messages: required (a non-empty array of messages)");
  if (!messages->is_array() || messages->empty())
    throw invalid_request("messages", "messages: expected a non-empty array of messages, got " + json_preview(*messages));
  MediaReader media(limits.media);
  set_conversation(request, read_chat_messages(*messages, media));
  refuse_chat_features(fields);
  read_chat_logprobs(fields, request.options);
  read_chat_rendering(fields, request);
}

void read_completion_prompt(const FieldReader& fields, const JsonLimits&, ApiRequest& request) {
  const RequestJson* prompt = fields.get("prompt");
  if (prompt == nullptr) throw invalid_request("prompt", "prompt: required (a string)");
  refuse_completion_features(fields);
  read_best_of(fields, request);
  read_completion_logprobs(fields, request.options);
  request.echo = fields.boolean("echo").value_or(false);
  request.options.prompt_logprobs = request.echo && request.options.logprobs.has_value();
  if (prompt->is_string()) {
    request.prompt_text = prompt->get<std::string>();
    return;
  }
  if (!prompt->is_array() || prompt->empty())
    throw invalid_request("prompt", "prompt: expected a string or token ids, got " + json_preview(*prompt));
  const RequestJson& first = (*prompt)[0];
  if (!first.is_string() && !first.is_array()) {
    request.prompt_ids = read_ids(*prompt, "prompt");
    return;
  }
  if (prompt->size() > static_cast<std::size_t>(kMaxPrompts))
    throw invalid_request("prompt", "prompt: " + std::to_string(prompt->size()) + " prompts; at most " +
                                        std::to_string(kMaxPrompts) + " per request");
  for (std::size_t i = 0; i < prompt->size(); ++i) {
    CompletionPrompt p = read_prompt_entry((*prompt)[i], i);
    if (i == 0) {
      request.prompt_text = std::move(p.text);
      request.prompt_ids = std::move(p.ids);
    } else {
      request.more_prompts.push_back(std::move(p));
    }
  }
}

}  // namespace ogai::serve
