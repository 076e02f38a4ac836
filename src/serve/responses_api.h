// POST /v1/responses: the text subset of OpenAI's Responses API, over the same engine and chat
// template as chat completions.
//
// Request fields read: model (required); input (required): a string (one user message) or an
// array of messages {role: user|assistant|system|developer, content: a string or an array of
// input_text / output_text parts}, items of `"type": "message"` or without a type;
// instructions (a system message put first); max_output_tokens; temperature; top_p; stream;
// text.format {"type": "text"}; and ogai's sampling extensions top_k, min_p, seed. Refused by
// name: tools (non-empty), previous_response_id, background, other input item or content types
// (images, files, function calls), a text.format other than text. Accepted and ignored: store,
// metadata, user, service_tier, tool_choice, parallel_tool_calls, reasoning, truncation, include.
// The rest are unknown fields (unknown_fields.h).
//
// Responses: a `response` object {id "resp_...", object, created_at, status (completed, or
// incomplete with incomplete_details.reason "max_output_tokens"), model, output: [one message
// item {id "msg_...", type, status, role, content: [{type "output_text", text, annotations}]}],
// usage {input_tokens, output_tokens, total_tokens, *_details}, and the request's settings}.
// Streaming events are in responses_stream.h. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/api_request.h"

namespace ogai::serve {

// A parsed Responses request: `request` is a chat request (endpoint kChat, messages with the
// instructions first); `echo` holds the settings the response object repeats (instructions,
// max_output_tokens, temperature, top_p, metadata, ...).
struct ResponsesRequest {
  ApiRequest request;
  nlohmann::json echo = nlohmann::json::object();
};

// Throws ApiError (400) naming the field.
ResponsesRequest parse_responses_request(const std::string& body);

struct ResponsesMeta {
  std::string id;       // "resp_<hex>"
  std::string item_id;  // "msg_<hex>"
  std::int64_t created_at = 0;
  std::string model;
  nlohmann::json echo = nlohmann::json::object();
};

// The output message item; `done` = status completed (else in_progress, with no content yet).
nlohmann::json responses_message_item(const ResponsesMeta& meta, const std::string& text, bool done);
// The response object. `result` null: in progress (no output, no usage).
nlohmann::json responses_json(const ResponsesMeta& meta, const GenerationResult* result, const std::string& text);

}  // namespace ogai::serve
