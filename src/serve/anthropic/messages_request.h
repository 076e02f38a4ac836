// POST /v1/messages and /v1/messages/count_tokens (Anthropic's Messages API): the request body
// parsed once and translated directly into the server's request model (common/conversation.h)
// and ApiRequest (the shared readers of common/request_fields.h and common/parse_tools.h), so
// both APIs share the checks, the tools' handling and generation without a JSON round trip.
//
// Fields read: model (required); max_tokens (required on /v1/messages: 400 when missing;
// count_tokens takes none); system (a string or an array of text blocks) as the first system
// message; messages (required, non-empty), each {role: user|assistant, content: a string or an
// array of blocks}: text, image {source: {type: base64, media_type, data}} (user; bounds in
// common/media_input.h; URL sources are refused), tool_use {id, name, input (an object)} (assistant), tool_result
// {tool_use_id, content (a string or text blocks), is_error} (user; each becomes a tool message),
// thinking {thinking} (assistant: its reasoning_content); tools [{name, description,
// input_schema}] (client tools; server tools, those with a versioned type, are refused);
// tool_choice {type: auto|any|tool|none, name, disable_parallel_tool_use} (any -> required, tool
// -> that function); stop_sequences; temperature, top_p, top_k (and ogai's extension seed);
// thinking {type: enabled, budget_tokens} / {type: disabled} -> the template variable
// enable_thinking (budget_tokens is checked, not enforced apart from max_tokens); stream. A final
// assistant message is continued (continue_final_message). cache_control on any block or tool and
// `metadata`, `service_tier` are ignored. Refused by name (400): document,
// search_result, redacted_thinking, server_tool_use and other block types, citations, mcp_servers,
// container. Other top-level fields are unknown fields (unknown_fields.h).
// Errors are ApiError 400s naming the Anthropic field (messages[1].content[0].tool_use_id).
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "serve/common/api_request.h"
#include "serve/common/json_limits.h"

namespace ogai::serve {

enum class MessagesRoute { kCreate, kCountTokens };

// A chat request (endpoint kChat, messages_api set). Throws ApiError.
ApiRequest parse_messages_request(const std::string& body, MessagesRoute route, const JsonLimits& limits = {});

// The names engine errors about the chat request use, translated to Anthropic's where they differ
// (tools[0].function.parameters -> tools[0].input_schema, stop -> stop_sequences, ...), in the
// param and in the message.
ApiError with_messages_names(ApiError error);

}  // namespace ogai::serve
