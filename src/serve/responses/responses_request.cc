// parse_responses_request (responses_api.h): a Responses request is translated into the chat
// completions request it means (input items -> messages, flat function tools -> chat tools,
// text.format -> response_format, reasoning.effort -> reasoning_effort) and parsed by
// parse_chat_request, so tools, grammars and reasoning work as on /v1/chat/completions; errors
// name the Responses fields.
#include <fmt/format.h>

#include <memory>
#include <utility>

#include "base/json_ordered.h"
#include "serve/common/json_fields.h"
#include "serve/responses/responses_api.h"
#include "serve/common/parse_tools.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

constexpr std::string_view kResponsesFields[] = {
    "model", "input", "instructions", "max_output_tokens", "temperature", "top_p", "stream", "text",
    "top_k", "min_p", "seed", "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs",
    "previous_response_id", "background", "store", "metadata", "user", "service_tier", "reasoning",
    "truncation", "include"};

// The chat request under way, and where each of its messages came from.
struct Translation {
  Json chat = Json::object();
  std::vector<std::string> origins;  // chat messages[k] -> "instructions" / "input[i]"
  void add(Json message, std::string origin) {
    chat["messages"].push_back(std::move(message));
    origins.push_back(std::move(origin));
  }
};

std::string required_string(const FieldReader& f, const char* name) {
  auto v = f.string(name);
  if (!v || v->empty()) throw invalid_request(f.param(name), f.param(name) + ": required (a non-empty string)");
  return *v;
}

void read_message_item(const FieldReader& f, const std::string& param, Translation& t) {
  auto role = f.string("role");
  if (!role) throw invalid_request(f.param("role"), f.param("role") + ": required");
  if (*role == "developer") role = "system";
  if (*role != "system" && *role != "user" && *role != "assistant")
    throw invalid_request(f.param("role"), f.param("role") + ": '" + *role +
                                               "' is not one of system, developer, user, assistant");
  const Json* content = f.get("content");
  if (content == nullptr) throw invalid_request(f.param("content"), f.param("content") + ": required");
  t.add({{"role", *role}, {"content", content_text(*content, f.param("content"), {"input_text", "output_text", "text"})}},
        param);
}

// A function_call item: a tool call of the assistant turn before it (consecutive calls are one
// turn, as a reply with parallel calls was).
void read_function_call(const FieldReader& f, const std::string& param, Translation& t) {
  const std::string call_id = required_string(f, "call_id");
  const std::string name = required_string(f, "name");
  auto arguments = f.string("arguments");
  if (!arguments) throw invalid_request(f.param("arguments"), f.param("arguments") + ": required (a JSON string)");
  Json call = {{"id", call_id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", *arguments}}}};
  Json& messages = t.chat["messages"];
  if (!messages.empty() && messages.back()["role"] == "assistant" && t.origins.back().starts_with("input")) {
    Json& last = messages.back();
    if (!last.contains("tool_calls")) last["tool_calls"] = Json::array();
    last["tool_calls"].push_back(std::move(call));
    return;
  }
  t.add({{"role", "assistant"}, {"content", ""}, {"tool_calls", Json::array({std::move(call)})}}, param);
}

void read_function_call_output(const FieldReader& f, const std::string& param, Translation& t) {
  const std::string call_id = required_string(f, "call_id");
  const Json* output = f.get("output");
  if (output == nullptr) throw invalid_request(f.param("output"), f.param("output") + ": required");
  const std::string text = content_text(*output, f.param("output"), {"input_text", "output_text", "text"});
  t.add({{"role", "tool"}, {"tool_call_id", call_id}, {"content", text}}, param);
}

void read_item(const Json& item, std::size_t i, Translation& t) {
  const std::string param = element_param("input", i);
  if (!item.is_object())
    throw invalid_request(param, param + ": expected an input item object, got " + json_preview(item));
  FieldReader f(item, param + ".");
  const std::string type = f.string("type").value_or("message");
  if (type == "message") return read_message_item(f, param, t);
  if (type == "function_call") return read_function_call(f, param, t);
  if (type == "function_call_output") return read_function_call_output(f, param, t);
  if (type == "reasoning") return;  // a previous reply's reasoning: templates drop it from history
  throw unsupported(f.param("type"), f.param("type") + ": " + quote_value(type) +
                                         " items are not supported (message, function_call, "
                                         "function_call_output and reasoning are)");
}

ApiError previous_not_found(const std::string& id) {
  ApiError e = invalid_request("previous_response_id", "Previous response with id " + quote_value(id) +
                                                           " not found (responses with store: false are not kept, and "
                                                           "the server keeps only the most recent ones)");
  e.status = 404;
  e.code = "previous_response_not_found";
  return e;
}

// previous_response_id: the stored conversation, after the instructions and before the input.
void read_previous(const FieldReader& f, const PreviousLookup& lookup, Translation& t) {
  const Json* v = f.get("previous_response_id");
  if (v == nullptr || v->is_null()) return;
  if (!v->is_string() || v->get_ref<const std::string&>().empty())
    throw invalid_request("previous_response_id", "previous_response_id: expected a response id, got " + json_preview(*v));
  const std::string id = v->get<std::string>();
  std::optional<Json> conversation = lookup ? lookup(id) : std::nullopt;
  if (!conversation) throw previous_not_found(id);
  for (Json& message : *conversation) t.add(std::move(message), "previous_response_id");
}

void read_input(const FieldReader& f, const PreviousLookup& lookup, Translation& t) {
  if (auto instructions = f.string("instructions")) t.add({{"role", "system"}, {"content", *instructions}}, "instructions");
  read_previous(f, lookup, t);
  const Json* input = f.get("input");
  if (input == nullptr) throw invalid_request("input", "input: required (a string or an array of items)");
  if (input->is_string()) return t.add({{"role", "user"}, {"content", *input}}, "input");
  if (!input->is_array() || input->empty())
    throw invalid_request("input", "input: expected a string or a non-empty array of items, got " + json_preview(*input));
  for (std::size_t i = 0; i < input->size(); ++i) read_item((*input)[i], i, t);
}

// A Responses tool {type: function, name, description, parameters, strict} -> a chat tool.
Json read_tool(const Json& tool, std::size_t i) {
  const std::string param = element_param("tools", i);
  if (!tool.is_object()) throw invalid_request(param, param + ": expected a tool object, got " + json_preview(tool));
  FieldReader f(tool, param + ".");
  const std::string type = f.string("type").value_or("");
  if (type != "function")
    throw unsupported(f.param("type"), f.param("type") + ": " + quote_value(type) +
                                           " tools are not supported (only function tools are)");
  Json function = Json::object();
  for (const char* name : {"name", "description", "parameters", "strict"})
    if (const Json* v = f.get(name)) function[name] = *v;
  return {{"type", "function"}, {"function", std::move(function)}};
}

void read_tool_choice(const FieldReader& f, Json& chat) {
  const Json* v = f.get("tool_choice");
  if (v == nullptr) return;
  if (v->is_string()) {
    chat["tool_choice"] = *v;  // auto, none, required: checked by the chat parser
    return;
  }
  if (!v->is_object())
    throw invalid_request("tool_choice", "tool_choice: expected auto, none, required or {\"type\": \"function\", "
                                         "\"name\": ...}, got " + json_preview(*v));
  FieldReader c(*v, "tool_choice.");
  const std::string type = c.string("type").value_or("");
  if (type != "function")
    throw invalid_request("tool_choice.type", "tool_choice.type: " + quote_value(type) + " is not \"function\"");
  chat["tool_choice"] = {{"type", "function"}, {"function", {{"name", required_string(c, "name")}}}};
}

void read_tools(const FieldReader& f, Json& chat) {
  if (const Json* tools = f.get("tools")) {
    if (!tools->is_array()) throw invalid_request("tools", "tools: expected an array of tools, got " + json_preview(*tools));
    for (std::size_t i = 0; i < tools->size(); ++i) chat["tools"].push_back(read_tool((*tools)[i], i));
  }
  read_tool_choice(f, chat);
  if (const Json* v = f.get("parallel_tool_calls")) chat["parallel_tool_calls"] = *v;
}

// text.format: text (nothing), json_object, json_schema {name, schema, strict} (flat), or ogai's regex.
void read_text_format(const FieldReader& f, Json& chat) {
  const Json* text = f.get("text");
  if (text == nullptr) return;
  if (!text->is_object()) throw invalid_request("text", "text: expected an object, got " + json_preview(*text));
  const Json* format = FieldReader(*text, "text.").get("format");
  if (format == nullptr) return;
  if (!format->is_object())
    throw invalid_request("text.format", "text.format: expected an object, got " + json_preview(*format));
  FieldReader t(*format, "text.format.");
  const std::string type = t.string("type").value_or("");
  if (type == "text") return;
  if (type == "json_object") {
    chat["response_format"] = {{"type", "json_object"}};
    return;
  }
  if (type == "regex") {  // ogai's extension, as response_format {"type": "regex", "regex": ...}
    chat["response_format"] = *format;
    return;
  }
  if (type != "json_schema")
    throw invalid_request("text.format.type", "text.format.type: " + quote_value(type) +
                                                  " is not one of text, json_object, json_schema, regex");
  Json schema = Json::object();
  for (const char* name : {"name", "description", "schema", "strict"})
    if (const Json* v = t.get(name)) schema[name] = *v;
  chat["response_format"] = {{"type", "json_schema"}, {"json_schema", std::move(schema)}};
}

void read_reasoning(const FieldReader& f, Json& chat) {
  const Json* v = f.get("reasoning");
  if (v == nullptr || v->is_null()) return;
  if (!v->is_object()) throw invalid_request("reasoning", "reasoning: expected an object, got " + json_preview(*v));
  if (const Json* effort = FieldReader(*v, "reasoning.").get("effort"); effort && !effort->is_null())
    chat["reasoning_effort"] = *effort;
}

void read_options(const FieldReader& f, Json& chat) {
  if (f.boolean("background").value_or(false))
    throw unsupported("background", "background: responses are answered in the request");
  if (const Json* max = f.get("max_output_tokens"); max && !max->is_null()) chat["max_tokens"] = *max;
  for (const char* name : {"temperature", "top_p", "top_k", "min_p", "seed", "stream", "chat_template_kwargs"})
    if (const Json* v = f.get(name); v && !v->is_null()) chat[name] = *v;
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// An error about the chat request names the Responses field it came from.
ApiError with_responses_names(ApiError e, const std::vector<std::string>& origins) {
  for (std::size_t k = 0; k < origins.size(); ++k) {
    const std::string chat = element_param("messages", k);
    auto names = [&](const std::string& s) { return s == chat || s.starts_with(chat + ".") || s.starts_with(chat + "["); };
    if (!names(e.param)) continue;
    e.param = origins[k];
    if (e.message.starts_with(chat)) e.message = origins[k] + e.message.substr(e.message.find(':'));
    break;
  }
  return responses_error_names(std::move(e));
}

Json echoed(const Json& body, const char* name) {
  auto it = body.find(name);
  return it == body.end() ? Json(nullptr) : *it;
}

// OpenAI's bounds on `metadata`: at most 16 pairs, keys up to 64 characters, string values up to
// 512. The object is echoed in the response and kept in the store, so it is checked, not trusted.
constexpr std::size_t kMaxMetadataPairs = 16, kMaxMetadataKey = 64, kMaxMetadataValue = 512;

void check_metadata(const Json& metadata) {
  if (metadata.is_null()) return;
  if (!metadata.is_object())
    throw invalid_request("metadata", "metadata: expected an object of string pairs, got " + json_preview(metadata));
  if (metadata.size() > kMaxMetadataPairs)
    throw invalid_request("metadata", fmt::format("metadata: at most {} pairs, got {}", kMaxMetadataPairs,
                                                  metadata.size()));
  for (auto it = metadata.begin(); it != metadata.end(); ++it) {
    if (it.key().size() > kMaxMetadataKey)
      throw invalid_request("metadata", fmt::format("metadata: keys are at most {} characters, got one of {}",
                                                    kMaxMetadataKey, it.key().size()));
    if (!it->is_string() || it->get_ref<const std::string&>().size() > kMaxMetadataValue)
      throw invalid_request("metadata", fmt::format("metadata.{}: expected a string of at most {} characters",
                                                    it.key().substr(0, kMaxMetadataKey), kMaxMetadataValue));
  }
}

Json echo_of(const Json& body) {
  Json metadata = echoed(body, "metadata");
  check_metadata(metadata);
  Json echo = {{"instructions", echoed(body, "instructions")},
               {"max_output_tokens", echoed(body, "max_output_tokens")},
               {"temperature", echoed(body, "temperature")},
               {"top_p", echoed(body, "top_p")},
               {"metadata", metadata.is_object() ? metadata : Json::object()},
               {"user", echoed(body, "user")}};
  for (const char* name : {"tools", "tool_choice", "parallel_tool_calls", "text", "previous_response_id", "reasoning"})
    if (auto it = body.find(name); it != body.end() && !it->is_null()) echo[name] = *it;
  return echo;
}

}  // namespace

ApiError responses_error_names(ApiError e) {
  constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {".function.parameters", ".parameters"}, {".function.description", ".description"},
      {"tool_choice.function.name", "tool_choice.name"}, {".function.name", ".name"}, {".function.strict", ".strict"},
      {"response_format.json_schema.", "text.format."}, {"response_format", "text.format"},
      {"reasoning_effort", "reasoning.effort"}, {"max_tokens", "max_output_tokens"}};
  for (const auto& [from, to] : kNames) {
    replace_all(e.param, from, to);
    replace_all(e.message, from, to);
  }
  if (e.param == "messages" || e.param.starts_with("messages[")) e.param = "input";
  return e;
}

ResponsesRequest parse_responses_request(const std::string& body, const JsonLimits& limits,
                                         const PreviousLookup& previous, const std::string& owner) {
  const Json j = parse_json_object(body, limits);
  FieldReader f(j);
  Translation t;
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  t.chat["model"] = *model;
  t.chat["messages"] = Json::array();
  read_input(f, previous, t);
  read_tools(f, t.chat);
  read_text_format(f, t.chat);
  read_reasoning(f, t.chat);
  read_options(f, t.chat);
  ResponsesRequest out;
  try {
    out.request = parse_chat_request(t.chat.dump(), limits);
  } catch (const ApiError& e) {
    throw with_responses_names(e, t.origins);
  }
  if (const Json* tools = f.get("tools"); tools && !tools->empty()) {
    const Ordered ordered = parse_ordered_json(body, "body");  // the client's key order in the tool schemas
    Ordered schemas = Ordered::array();
    for (const auto& tool : ordered.at("tools")) schemas.push_back({{"function", {{"parameters", tool.value("parameters", Ordered::object())}}}});
    keep_parameter_order(schemas, out.request.chat);
  }
  out.request.unknown_fields = unknown_fields(j, kResponsesFields);
  auto state = std::make_shared<ResponsesState>();
  state->previous_response_id = f.string("previous_response_id");
  state->store = f.boolean("store").value_or(true);
  state->echo = echo_of(j);
  state->echo["store"] = state->store;
  state->conversation = t.chat["messages"];
  state->owner = owner;
  if (!t.origins.empty() && t.origins.front() == "instructions") state->conversation.erase(0);
  out.request.responses = std::move(state);
  return out;
}

}  // namespace ogai::serve
