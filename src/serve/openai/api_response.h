// OpenAI-format response bodies: chat.completion / text_completion objects, their streaming
// chunks (chat.completion.chunk / text_completion) framed as server-sent events, usage, and the
// model list. Pure functions of their arguments; thread-safe.
//
// finish_reason: EOS and stop strings / stop ids map to "stop", max_tokens and the context limit
// to "length" (OpenAI has no "cancelled": a cancelled generation is never answered with a choice).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"

namespace ogai::serve {

struct ResponseMeta {
  Endpoint endpoint = Endpoint::kChat;
  std::string id;            // "chatcmpl-..." / "cmpl-..."
  std::int64_t created = 0;  // Unix seconds
  std::string model;
};

// "stop" (kStop, kEos), "length" (kLength), "cancelled" (kCancelled; not an OpenAI value).
const char* openai_finish_reason(FinishReason reason);

nlohmann::json usage_json(std::size_t prompt_tokens, std::size_t completion_tokens);

// The whole response of a non-streaming request. `logprobs` is the choice's logprobs value
// (LogprobsJson; null when not asked).
// `reply`: the parsed chat reply (chat with tools or reasoning; serve/common/chat_reply_json.h), or null:
// the message's content is the text.
nlohmann::json completion_json(const ResponseMeta& meta, const GenerationResult& result,
                               nlohmann::json logprobs = nullptr, const ChatReply* reply = nullptr);

// n > 1: choice i of results[i] (index i), usage = the prompt once and every choice's tokens.
// `logprobs` has one value per result; `replies` one per result, or none.
nlohmann::json completion_choices_json(const ResponseMeta& meta, const std::vector<GenerationResult>& results,
                                      std::vector<nlohmann::json> logprobs, const std::vector<ChatReply>& replies = {});

// One streaming chunk. Chat: delta {"role":"assistant","content":""} when `role` is set, else
// {"content": text} (or {} with a finish reason and no text); completions: {"text": text}.
// `finish` may be null (not finished yet). `usage_null` adds "usage": null (include_usage asked).
// `logprobs`: the logprobs of the tokens whose text this chunk carries (null when not asked).
nlohmann::json chunk_json(const ResponseMeta& meta, std::string_view text, const char* finish, bool role,
                          bool usage_null, nlohmann::json logprobs = nullptr);
// The last chunk when include_usage is asked: no choices, the usage.
nlohmann::json usage_chunk_json(const ResponseMeta& meta, std::size_t prompt_tokens, std::size_t completion_tokens);

// GET /v1/models and GET /v1/models/{id}.
nlohmann::json model_json(const std::string& name, std::int64_t created, std::int64_t context_length);
// One entry per id the server answers to (its name first, then its aliases).
nlohmann::json model_list_json(std::span<const std::string> names, std::int64_t created,
                               std::int64_t context_length);

// Compact JSON; invalid UTF-8 in strings is replaced, never thrown on.
std::string to_text(const nlohmann::json& value);
// "data: <json>\n\n" and "data: [DONE]\n\n".
std::string sse_event(const nlohmann::json& value);
std::string sse_done();

}  // namespace ogai::serve
