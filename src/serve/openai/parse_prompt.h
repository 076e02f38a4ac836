// The endpoint-specific part of request parsing: chat `messages` (roles system, developer,
// user, assistant with tool_calls, tool with tool_call_id; chat logprobs) and completion `prompt` (best_of read, a non-empty suffix refused;
// echo read, asking for prompt logprobs when logprobs are asked). Internal to serve; see api_request.h for the contract.
#pragma once

#include <nlohmann/json.hpp>

#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {

// messages: a non-empty array of {role, content, tool_calls, tool_call_id, name, reasoning_content}; content is a string, null (assistant only) or an
// array of {"type": "text", "text"} parts joined with "\n".
void read_chat_prompt(const nlohmann::json& body, const FieldReader& fields, ApiRequest& request);
// prompt: a string, an array of token ids, or an array of prompts (1..kMaxPrompts strings or
// non-empty token-id arrays; the first into prompt_text / prompt_ids, the rest into more_prompts).
void read_completion_prompt(const nlohmann::json& body, const FieldReader& fields, ApiRequest& request);

}  // namespace ogai::serve
