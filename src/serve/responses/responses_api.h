// POST /v1/responses: OpenAI's Responses API over the same engine, chat template, tools,
// grammars and reasoning parser as chat completions.
//
// Request (responses_request.cc translates it into the chat request it means and parses that
// with parse_chat_request): model (required); input (required): a string (one user message) or
// an array of items: messages {role: user|assistant|system|developer, content: a string or
// input_text / output_text parts} (`"type": "message"` or no type), function_call items
// {call_id, name, arguments} (the assistant's tool calls; consecutive ones are one turn),
// function_call_output items {call_id, output} (tool results), reasoning items (dropped, as
// templates drop reasoning from history); instructions (a system message put first); tools
// [{type: "function", name, description, parameters, strict}] (flat); tool_choice ("auto",
// "none", "required" or {type: "function", name}); parallel_tool_calls; text.format {type: text
// | json_object | json_schema with name, schema, strict | ogai's regex {regex}} (-> response_format); reasoning.effort
// (-> reasoning_effort); max_output_tokens; temperature; top_p; stream; store (default true);
// previous_response_id (responses_store.h); ogai's top_k, min_p, seed, chat_template_kwargs.
// Refused: background, other item, tool or content types. Accepted and ignored: metadata (echoed),
// user, service_tier, truncation, include. The rest are unknown fields (unknown_fields.h).
// Errors name the Responses fields (input[i], tools[i].parameters, text.format, ...).
//
// Response: a `response` object {id "resp_...", object, created_at, status (completed, or
// incomplete with incomplete_details.reason "max_output_tokens"), model, output, usage
// {input_tokens, output_tokens, total_tokens, *_details}, and the request's settings}. output,
// in order: a reasoning item {id "rs_...", summary [], content [{type reasoning_text, text}]}
// when the template's reasoning section had text; the message item {id "msg_...", role
// assistant, content [{type output_text, text, annotations}]} unless the reply is only tool
// calls; one function_call item {id "fc_...", call_id "call_...", name, arguments, status
// completed} per call. Streaming events are in responses_stream.h. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/common/api_request.h"

namespace ogai::serve {

// What a Responses request's answer needs besides its chat request: `echo`, the settings the
// response object repeats; store (default true) and previous_response_id (responses_store.h).
struct ResponsesState {
  nlohmann::json echo = nlohmann::json::object();
  std::optional<std::string> previous_response_id;
  bool store = true;
  // The chat messages of this request without its instructions (the previous response's
  // conversation first): what the store keeps, with the reply, under this response's id.
  nlohmann::json conversation = nlohmann::json::array();
  std::string owner;  // the API key's tag (auth.h api_key_owner): who may read the stored response
};

// A parsed Responses request: a chat request (endpoint kChat, messages with the instructions
// first) with `responses` set.
struct ResponsesRequest {
  ApiRequest request;
  const ResponsesState& state() const { return *request.responses; }
};

// previous_response_id -> the stored conversation (responses_store.h), or nullopt when unknown.
using PreviousLookup = std::function<std::optional<nlohmann::json>(const std::string& id)>;

// Throws ApiError (400) naming the field; 404 (code previous_response_not_found) for a
// previous_response_id `previous` does not know. `owner` (auth.h api_key_owner) is kept in the
// state: who may read the response once stored.
ResponsesRequest parse_responses_request(const std::string& body, const JsonLimits& limits = {},
                                         const PreviousLookup& previous = {}, const std::string& owner = "");
// An error raised about the chat request a Responses request became, under the Responses names.
ApiError responses_error_names(ApiError e);

struct ResponsesMeta {
  std::string id;       // "resp_<hex>"
  std::string item_id;  // "msg_<hex>"; the reasoning item is "rs_<hex>", function calls "fc_<hex>_<i>"
  std::int64_t created_at = 0;
  std::string model;
  nlohmann::json echo = nlohmann::json::object();
};

std::string reasoning_item_id(const ResponsesMeta& meta);
std::string call_item_id(const ResponsesMeta& meta, std::size_t i);

// The output items (each `done`: status completed, else in_progress with no content yet).
nlohmann::json responses_message_item(const ResponsesMeta& meta, const std::string& text, bool done);
nlohmann::json responses_reasoning_item(const ResponsesMeta& meta, const std::string& text, bool done);
nlohmann::json responses_call_item(const ResponsesMeta& meta, std::size_t i, const ToolCall& call, bool done);
// The response object. `result` null: in progress (no output, no usage).
nlohmann::json responses_json(const ResponsesMeta& meta, const GenerationResult* result, const ChatReply& reply);
// The output array of a finished reply (the order above).
nlohmann::json responses_output(const ResponsesMeta& meta, const ChatReply& reply);

}  // namespace ogai::serve
