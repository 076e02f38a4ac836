// A parsed chat reply (ogai::ChatReply, include/ogai/chat.h) in OpenAI's JSON: the message's
// content, reasoning_content (ogai's and vLLM's field for the reasoning section) and tool_calls,
// the finish reason "tool_calls", and the streamed deltas as OpenAI streams them: a chunk per
// piece, a tool call's first chunk with {"index", "id", "type": "function", "function": {"name",
// "arguments": ""}}, its arguments in later chunks {"index", "function": {"arguments"}}. Pure
// functions; thread-safe.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/openai/api_response.h"

namespace ogai::serve {

// Sets message.content (null when empty and the reply holds calls), reasoning_content (when
// non-empty) and tool_calls (when any).
void set_reply_message(nlohmann::json& message, const ChatReply& reply);

// "tool_calls" when the reply holds calls and generation ended by itself; else
// openai_finish_reason(reason).
const char* chat_finish_reason(FinishReason reason, const ChatReply* reply);

// The chunks of one delta (none when it is empty, unless `logprobs` must be carried: then one
// chunk with an empty content). `logprobs` goes on the first chunk.
std::vector<nlohmann::json> delta_chunks(const ResponseMeta& meta, const ChatReplyDelta& delta, bool usage_null,
                                         nlohmann::json logprobs);

}  // namespace ogai::serve
