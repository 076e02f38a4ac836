// The endpoint-specific part of request parsing: chat `messages` (roles system, developer,
// user, assistant with tool_calls, tool with tool_call_id; chat logprobs) and completion `prompt` (best_of read, a non-empty suffix refused;
// echo read, asking for prompt logprobs when logprobs are asked). Internal to serve; see api_request.h for the contract.
#pragma once

#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {

// messages: a non-empty array of chat messages (chat_messages.h: text, image and audio parts),
// read into the request model and lowered into request.messages.
void read_chat_prompt(const FieldReader& fields, const JsonLimits& limits, ApiRequest& request);
// prompt: a string, an array of token ids, or an array of prompts (1..kMaxPrompts strings or
// non-empty token-id arrays; the first into prompt_text / prompt_ids, the rest into more_prompts).
void read_completion_prompt(const FieldReader& fields, const JsonLimits& limits, ApiRequest& request);

}  // namespace ogai::serve
