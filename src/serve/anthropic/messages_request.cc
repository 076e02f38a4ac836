// parse_messages_request (messages_request.h): an Anthropic Messages body read once and translated
// straight into the request model (common/conversation.h) and the ApiRequest's options; no chat
// completions JSON is written or parsed in between. Errors name the Anthropic fields.
#include "serve/anthropic/messages_request.h"

#include <utility>

#include "base/cancel.h"
#include "serve/common/json_fields.h"
#include "serve/common/parse_tools.h"
#include "serve/common/request_fields.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

constexpr std::string_view kMessagesFields[] = {
    "model", "max_tokens", "system", "messages", "tools", "tool_choice", "stop_sequences", "temperature", "top_p",
    "top_k", "metadata", "thinking", "stream", "service_tier", "mcp_servers", "container", "seed"};

ApiError refused_block(const std::string& param, const std::string& type) {
  return unsupported(param + ".type", param + ".type: " + quote_value(type) +
                                          " blocks are not supported (text, image, tool_use, tool_result and "
                                          "thinking are)");
}

// A string field that must be there and not be empty.
std::string required_string(const FieldReader& b, const char* name) {
  auto v = b.string(name);
  if (!v || v->empty()) throw invalid_request(b.param(name), b.param(name) + ": required (a non-empty string)");
  return *v;
}

// A content block as an object, its reader and its type.
FieldReader block_reader(const RequestJson& block, const std::string& at) {
  if (!block.is_object()) throw invalid_request(at, at + ": expected a content block, got " + json_preview(block));
  return FieldReader(block, at + ".");
}

std::string text_of(const FieldReader& b) {
  if (b.get("citations") != nullptr) throw unsupported(b.param("citations"), b.param("citations") + ": not supported");
  return b.string("text").value_or("");
}

// The text of a string or of an array of text blocks (`param` names it in errors).
std::string block_text(const RequestJson& content, const std::string& param) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array())
    throw invalid_request(param, param + ": expected a string or an array of text blocks, got " +
                                     json_preview(content));
  std::string text;
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string at = element_param(param, k);
    FieldReader b = block_reader(content[k], at);
    const std::string type = b.string("type").value_or("");
    if (type != "text") throw refused_block(at, type);
    text += (k ? "\n" : "") + text_of(b);
  }
  return text;
}

// {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ...}}.
Part read_image(const FieldReader& b, const std::string& at, MediaReader& media) {
  const RequestJson* source = b.get("source");
  if (source == nullptr || !source->is_object())
    throw invalid_request(b.param("source"), b.param("source") + ": required (an object {type: base64, media_type, data})");
  FieldReader s(*source, b.param("source") + ".");
  const std::string type = s.string("type").value_or("");
  if (type == "url") {  // fetched only with --allow-media-urls (media_fetch.h)
    auto url = s.string("url");
    if (!url) throw invalid_request(s.param("url"), s.param("url") + ": required (an http or https URL)");
    return Part::media_part(media.url(MediaInput::Kind::kImage, *url, s.param("url"), at));
  }
  if (type != "base64")
    throw invalid_request(s.param("type"), s.param("type") + ": " + quote_value(type) + " is not \"base64\" or \"url\"");
  auto mime = s.string("media_type");
  if (!mime) throw invalid_request(s.param("media_type"), s.param("media_type") + ": required (image/png, ...)");
  auto data = s.string("data");
  if (!data) throw invalid_request(s.param("data"), s.param("data") + ": required (base64 image data)");
  return Part::media_part(media.base64(MediaInput::Kind::kImage, *data, *mime, s.param("data"), at));
}

// A user turn: text, image and tool_result blocks in order.
void read_user(const RequestJson& content, const std::string& param, MediaReader& media, Turn& turn) {
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string at = element_param(param, k);
    FieldReader b = block_reader(content[k], at);
    const std::string type = b.string("type").value_or("");
    if (type == "text") {
      turn.parts.push_back(Part::text_part(text_of(b), at));
    } else if (type == "image") {
      turn.parts.push_back(read_image(b, at, media));
    } else if (type == "tool_result") {
      const std::string id = required_string(b, "tool_use_id");
      const RequestJson* result = b.get("content");
      std::string out = result ? block_text(*result, b.param("content")) : "";
      if (b.boolean("is_error").value_or(false)) out = "Error: " + out;
      turn.parts.push_back(Part::tool_result(id, std::move(out), at));
    } else {
      throw refused_block(at, type);
    }
  }
}

// An assistant turn: text, thinking (its reasoning) and tool_use blocks (input as the client wrote it).
void read_assistant(const RequestJson& content, const std::string& param, Turn& turn) {
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string at = element_param(param, k);
    FieldReader b = block_reader(content[k], at);
    const std::string type = b.string("type").value_or("");
    if (type == "text") {
      turn.parts.push_back(Part::text_part(b.string("text").value_or(""), at));
    } else if (type == "thinking") {
      turn.parts.push_back(Part::reasoning(b.string("thinking").value_or(""), at));
    } else if (type == "tool_use") {
      const std::string id = required_string(b, "id");
      const std::string name = required_string(b, "name");
      const RequestJson* input = b.get("input");
      if (input != nullptr && !input->is_object())
        throw invalid_request(b.param("input"), b.param("input") + ": expected an object, got " + json_preview(*input));
      turn.parts.push_back(Part::tool_call({id, name, input ? input->dump() : "{}"}, at));
    } else {
      throw refused_block(at, type);
    }
  }
}

Turn read_message(const RequestJson& item, std::size_t i, MediaReader& media) {
  const std::string param = element_param("messages", i);
  if (!item.is_object())
    throw invalid_request(param, param + ": expected a message object, got " + json_preview(item));
  FieldReader f(item, param + ".");
  auto role = f.string("role");
  if (!role) throw invalid_request(f.param("role"), f.param("role") + ": required");
  if (*role != "user" && *role != "assistant")
    throw invalid_request(f.param("role"), f.param("role") + ": " + quote_value(*role) +
                                               " is not one of user, assistant (a system prompt is the top-level "
                                               "system field)");
  Turn turn{*role, {}, "", param};
  const RequestJson* content = f.get("content");
  if (content == nullptr) throw invalid_request(f.param("content"), f.param("content") + ": required");
  if (content->is_string()) {
    turn.parts.push_back(Part::text_part(content->get<std::string>(), f.param("content")));
    return turn;
  }
  if (!content->is_array())
    throw invalid_request(f.param("content"), f.param("content") + ": expected a string or an array of content "
                                                                   "blocks, got " + json_preview(*content));
  if (content->empty()) throw invalid_request(f.param("content"), f.param("content") + ": must not be an empty array");
  if (*role == "user") read_user(*content, f.param("content"), media, turn);
  else read_assistant(*content, f.param("content"), turn);
  return turn;
}

// system, then the messages; a final assistant message is continued (Anthropic's prefill).
Conversation read_conversation(const FieldReader& f, const JsonLimits& limits, ApiRequest& r) {
  Conversation c;
  if (const RequestJson* system = f.get("system"))
    c.turns.push_back({"system", {Part::text_part(block_text(*system, "system"), "system")}, "", "system"});
  const RequestJson* messages = f.get("messages");
  if (messages == nullptr) throw invalid_request("messages", "messages: required (a non-empty array of messages)");
  if (!messages->is_array() || messages->empty())
    throw invalid_request("messages", "messages: expected a non-empty array of messages, got " + json_preview(*messages));
  MediaReader media(limits.media);
  for (std::size_t i = 0; i < messages->size(); ++i) {
    check_cancelled("the request's translation");  // base/cancel.h
    c.turns.push_back(read_message((*messages)[i], i, media));
  }
  if (c.turns.back().role == "assistant") {
    r.continue_final_message = true;
    r.add_generation_prompt = false;
  }
  return c;
}

Tool read_tool(const RequestJson& tool, std::size_t i) {
  const std::string param = element_param("tools", i);
  if (!tool.is_object()) throw invalid_request(param, param + ": expected a tool object, got " + json_preview(tool));
  FieldReader f(tool, param + ".");
  const std::string type = f.string("type").value_or("custom");
  if (type != "custom")
    throw unsupported(f.param("type"), f.param("type") + ": server tools (" + quote_value(type) +
                                           ") are not supported; declare client tools with name and input_schema");
  if (f.get("input_schema") == nullptr)
    throw invalid_request(f.param("input_schema"), f.param("input_schema") + ": required");
  return read_function(f, "input_schema", true);
}

ToolChoice read_tool_choice(const FieldReader& f, ChatOptions& chat) {
  const RequestJson* v = f.get("tool_choice");
  if (v == nullptr) return {};
  if (!v->is_object())
    throw invalid_request("tool_choice", "tool_choice: expected an object {\"type\": auto|any|tool|none}, got " +
                                             json_preview(*v));
  FieldReader c(*v, "tool_choice.");
  if (c.boolean("disable_parallel_tool_use").value_or(false)) chat.parallel_tool_calls = false;
  const std::string type = c.string("type").value_or("");
  if (type == "auto") return {ToolChoice::Mode::kAuto, ""};
  if (type == "any") return {ToolChoice::Mode::kRequired, ""};
  if (type == "none") return {ToolChoice::Mode::kNone, ""};
  if (type != "tool")
    throw invalid_request("tool_choice.type", "tool_choice.type: " + quote_value(type) +
                                                  " is not one of auto, any, tool, none");
  auto name = c.string("name");
  if (!name) throw invalid_request("tool_choice.name", "tool_choice.name: required with type \"tool\"");
  return {ToolChoice::Mode::kFunction, *name};
}

void read_tools(const FieldReader& f, ApiRequest& r) {
  if (const RequestJson* tools = f.get("tools")) {
    if (!tools->is_array()) throw invalid_request("tools", "tools: expected an array of tools, got " + json_preview(*tools));
    for (std::size_t i = 0; i < tools->size(); ++i) r.chat.tools.push_back(read_tool((*tools)[i], i));
  }
  r.chat.tool_choice = read_tool_choice(f, r.chat);
}

// thinking {type: enabled, budget_tokens} / {type: disabled} -> the template's enable_thinking.
void read_thinking(const FieldReader& f, ChatOptions& chat) {
  const RequestJson* v = f.get("thinking");
  if (v == nullptr) return;
  if (!v->is_object()) throw invalid_request("thinking", "thinking: expected an object, got " + json_preview(*v));
  FieldReader t(*v, "thinking.");
  const std::string type = t.string("type").value_or("");
  if (type == "disabled") {
    chat.template_kwargs["enable_thinking"] = "false";
    return;
  }
  if (type != "enabled")
    throw invalid_request("thinking.type", "thinking.type: " + quote_value(type) + " is not one of enabled, disabled");
  auto budget = t.integer("budget_tokens");
  if (!budget || *budget < 1)
    throw invalid_request("thinking.budget_tokens", "thinking.budget_tokens: required, a positive integer");
  chat.template_kwargs["enable_thinking"] = "true";
}

void read_options(const FieldReader& f, MessagesRoute route, ApiRequest& r) {
  for (const char* name : {"mcp_servers", "container"})
    if (f.get(name) != nullptr) throw unsupported(name, std::string(name) + ": not supported by this server");
  if (route == MessagesRoute::kCreate) {
    if (f.get("max_tokens") == nullptr)
      throw invalid_request("max_tokens", "max_tokens: required (the most tokens to generate)");
    read_max_tokens(f, "max_tokens", r.options);
    r.stream = f.boolean("stream").value_or(false);
  }
  read_sampling(f, r.options.sampling, {"temperature", "top_p", "top_k", "seed"});
  if (const RequestJson* stops = f.get("stop_sequences"); stops && !stops->is_array())
    throw invalid_request("stop_sequences", "stop_sequences: expected an array of strings, got " + json_preview(*stops));
  r.options.stop = read_stop(f, "stop_sequences");
}

}  // namespace

ApiError with_messages_names(ApiError e) {
  constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {".function.parameters", ".input_schema"}, {".function.description", ".description"},
      {"tool_choice.function.name", "tool_choice.name"}, {".function.name", ".name"},
      {"parallel_tool_calls", "tool_choice.disable_parallel_tool_use"}, {"chat_template_kwargs", "thinking"}};
  auto replace_all = [](std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  };
  for (const auto& [from, to] : kNames) {
    replace_all(e.param, from, to);
    replace_all(e.message, from, to);
  }
  if (e.param == "stop" || e.param.starts_with("stop[")) {
    e.param = "stop_sequences" + e.param.substr(4);
    if (e.message.starts_with("stop")) e.message = "stop_sequences" + e.message.substr(4);
  }
  return e;
}

ApiRequest parse_messages_request(const std::string& body, MessagesRoute route, const JsonLimits& limits) {
  const RequestJson j = parse_json_object(body, limits, kMessagesGrammarPaths);
  FieldReader f(j);
  ApiRequest r;
  r.endpoint = Endpoint::kChat;
  r.messages_api = true;
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = *model;
  set_conversation(r, read_conversation(f, limits, r));
  read_tools(f, r);
  read_thinking(f, r.chat);
  read_options(f, route, r);
  r.unknown_fields = unknown_fields(j, kMessagesFields);
  return r;
}

}  // namespace ogai::serve
