#include "serve/openai/api_response.h"

#include "serve/common/chat_reply_json.h"

namespace ogai::serve {
namespace {

bool is_chat(const ResponseMeta& meta) { return meta.endpoint == Endpoint::kChat; }

nlohmann::json envelope(const ResponseMeta& meta, const char* object) {
  return {{"id", meta.id}, {"object", object}, {"created", meta.created}, {"model", meta.model}};
}

nlohmann::json nullable(const char* s) { return s == nullptr ? nlohmann::json(nullptr) : nlohmann::json(s); }

}  // namespace

const char* openai_finish_reason(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
    case FinishReason::kEos: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kCancelled: return "cancelled";
  }
  return "stop";
}

nlohmann::json usage_json(std::size_t prompt_tokens, std::size_t completion_tokens) {
  return {{"prompt_tokens", prompt_tokens},
          {"completion_tokens", completion_tokens},
          {"total_tokens", prompt_tokens + completion_tokens}};
}

nlohmann::json completion_json(const ResponseMeta& meta, const GenerationResult& result, nlohmann::json logprobs,
                               const ChatReply* reply) {
  nlohmann::json choice = {{"index", 0}, {"logprobs", std::move(logprobs)},
                           {"finish_reason", chat_finish_reason(result.finish_reason, reply)}};
  if (is_chat(meta)) {
    choice["message"] = {{"role", "assistant"}, {"content", result.text}, {"refusal", nullptr}};
    if (reply != nullptr) set_reply_message(choice["message"], *reply);
  } else
    choice["text"] = result.text;
  nlohmann::json j = envelope(meta, is_chat(meta) ? "chat.completion" : "text_completion");
  j["choices"] = nlohmann::json::array({choice});
  j["usage"] = usage_json(result.prompt_ids.size(), result.ids.size());
  return j;
}

nlohmann::json completion_choices_json(const ResponseMeta& meta, const std::vector<GenerationResult>& results,
                                      std::vector<nlohmann::json> logprobs, const std::vector<ChatReply>& replies) {
  auto reply = [&](std::size_t i) { return replies.empty() ? nullptr : &replies[i]; };
  nlohmann::json j = completion_json(meta, results.front(), std::move(logprobs.front()), reply(0));
  std::size_t generated = results.front().ids.size();
  for (std::size_t i = 1; i < results.size(); ++i) {
    nlohmann::json choice = completion_json(meta, results[i], std::move(logprobs[i]), reply(i))["choices"][0];
    choice["index"] = i;
    j["choices"].push_back(std::move(choice));
    generated += results[i].ids.size();
  }
  j["usage"] = usage_json(results.front().prompt_ids.size(), generated);
  return j;
}

nlohmann::json chunk_json(const ResponseMeta& meta, std::string_view text, const char* finish, bool role,
                          bool usage_null, nlohmann::json logprobs) {
  nlohmann::json choice = {{"index", 0}, {"logprobs", std::move(logprobs)}, {"finish_reason", nullable(finish)}};
  if (!is_chat(meta)) {
    choice["text"] = std::string(text);
  } else if (role) {
    choice["delta"] = {{"role", "assistant"}, {"content", ""}};
  } else {
    choice["delta"] = nlohmann::json::object();
    if (!text.empty() || finish == nullptr) choice["delta"]["content"] = std::string(text);
  }
  nlohmann::json j = envelope(meta, is_chat(meta) ? "chat.completion.chunk" : "text_completion");
  j["choices"] = nlohmann::json::array({choice});
  if (usage_null) j["usage"] = nullptr;
  return j;
}

nlohmann::json usage_chunk_json(const ResponseMeta& meta, std::size_t prompt_tokens, std::size_t completion_tokens) {
  nlohmann::json j = envelope(meta, is_chat(meta) ? "chat.completion.chunk" : "text_completion");
  j["choices"] = nlohmann::json::array();
  j["usage"] = usage_json(prompt_tokens, completion_tokens);
  return j;
}

nlohmann::json model_json(const std::string& name, std::int64_t created, std::int64_t context_length) {
  return {{"id", name}, {"object", "model"}, {"created", created}, {"owned_by", "ogai"},
          {"context_length", context_length}};
}

nlohmann::json model_list_json(std::span<const std::string> names, std::int64_t created,
                               std::int64_t context_length) {
  nlohmann::json data = nlohmann::json::array();
  for (const std::string& name : names) data.push_back(model_json(name, created, context_length));
  return {{"object", "list"}, {"data", std::move(data)}};
}

std::string to_text(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string sse_event(const nlohmann::json& value) { return "data: " + to_text(value) + "\n\n"; }

std::string sse_done() { return "data: [DONE]\n\n"; }

}  // namespace ogai::serve
