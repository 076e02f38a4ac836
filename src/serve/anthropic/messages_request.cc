#include "base/json_ordered.h"
#include "serve/anthropic/messages_request.h"

#include <utility>

#include "serve/common/json_fields.h"
#include "serve/common/parse_tools.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

using Json = nlohmann::json;
using Ordered = nlohmann::ordered_json;

constexpr std::string_view kMessagesFields[] = {
    "model", "max_tokens", "system", "messages", "tools", "tool_choice", "stop_sequences", "temperature", "top_p",
    "top_k", "metadata", "thinking", "stream", "service_tier", "mcp_servers", "container", "seed"};

// The translation under way: the chat request's body, and where each of its messages came from.
struct Translation {
  Json chat = Json::object();
  std::vector<std::string> origins;  // chat messages[k] -> "system" / "messages[i]"
  void add(Json message, std::string origin) {
    chat["messages"].push_back(std::move(message));
    origins.push_back(std::move(origin));
  }
};

ApiError refused_block(const std::string& param, const std::string& type) {
  return unsupported(param + ".type", param + ".type: '" + type + "' blocks are not supported (text, tool_use, "
                                      "tool_result and thinking are)");
}

// A string field that must be there and not be empty.
std::string required_string(const FieldReader& b, const char* name) {
  auto v = b.string(name);
  if (!v || v->empty()) throw invalid_request(b.param(name), b.param(name) + ": required (a non-empty string)");
  return *v;
}

// The text of a string or of an array of text blocks (`param` names it in errors).
std::string block_text(const Json& content, const std::string& param) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array())
    throw invalid_request(param, param + ": expected a string or an array of text blocks, got " +
                                     json_preview(content));
  std::string text;
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string at = element_param(param, k);
    if (!content[k].is_object()) throw invalid_request(at, at + ": expected a text block, got " + json_preview(content[k]));
    FieldReader b(content[k], at + ".");
    const std::string type = b.string("type").value_or("");
    if (type != "text") throw refused_block(at, type);
    if (b.get("citations") != nullptr) throw unsupported(b.param("citations"), b.param("citations") + ": not supported");
    if (!text.empty()) text += "\n";
    text += b.string("text").value_or("");
  }
  return text;
}

void read_system(const FieldReader& f, Translation& t) {
  const Json* system = f.get("system");
  if (system == nullptr) return;
  t.add({{"role", "system"}, {"content", block_text(*system, "system")}}, "system");
}

// A user turn: its text (joined) and each tool_result as a tool message, in their order.
void read_user(const Json& content, const std::string& param, Translation& t, const std::string& origin) {
  std::string text;
  bool has_text = false;
  auto flush = [&] {
    if (has_text) t.add({{"role", "user"}, {"content", text}}, origin);
    text.clear();
    has_text = false;
  };
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string at = element_param(param, k);
    if (!content[k].is_object()) throw invalid_request(at, at + ": expected a content block, got " + json_preview(content[k]));
    FieldReader b(content[k], at + ".");
    const std::string type = b.string("type").value_or("");
    if (type == "text") {
      if (b.get("citations") != nullptr) throw unsupported(b.param("citations"), b.param("citations") + ": not supported");
      text += (has_text ? "\n" : "") + b.string("text").value_or("");
      has_text = true;
    } else if (type == "tool_result") {
      flush();
      const std::string id = required_string(b, "tool_use_id");
      const Json* result = b.get("content");
      std::string out = result ? block_text(*result, b.param("content")) : "";
      if (b.boolean("is_error").value_or(false)) out = "Error: " + out;
      t.add({{"role", "tool"}, {"tool_call_id", id}, {"content", out}}, origin);
    } else {
      throw refused_block(at, type);
    }
  }
  flush();
}

// An assistant turn: text, its tool_use blocks as tool calls (their input in the client's key
// order, from `ordered`), thinking as reasoning_content.
Json read_assistant(const Json& content, const Ordered& ordered, const std::string& param) {
  Json message = {{"role", "assistant"}, {"content", ""}};
  std::string text, reasoning;
  for (std::size_t k = 0; k < content.size(); ++k) {
    const std::string at = element_param(param, k);
    if (!content[k].is_object()) throw invalid_request(at, at + ": expected a content block, got " + json_preview(content[k]));
    FieldReader b(content[k], at + ".");
    const std::string type = b.string("type").value_or("");
    if (type == "text") {
      text += (text.empty() ? "" : "\n") + b.string("text").value_or("");
    } else if (type == "thinking") {
      reasoning += b.string("thinking").value_or("");
    } else if (type == "tool_use") {
      const std::string id = required_string(b, "id");
      const std::string name = required_string(b, "name");
      const Json* input = b.get("input");
      if (input != nullptr && !input->is_object())
        throw invalid_request(b.param("input"), b.param("input") + ": expected an object, got " + json_preview(*input));
      const std::string arguments = input ? ordered.at(k).at("input").dump() : "{}";
      message["tool_calls"].push_back({{"id", id}, {"type", "function"},
                                       {"function", {{"name", name}, {"arguments", arguments}}}});
    } else {
      throw refused_block(at, type);
    }
  }
  message["content"] = text;
  if (!reasoning.empty()) message["reasoning_content"] = reasoning;
  return message;
}

void read_message(const Json& item, const Ordered& ordered, std::size_t i, Translation& t) {
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
  const Json* content = f.get("content");
  if (content == nullptr) throw invalid_request(f.param("content"), f.param("content") + ": required");
  if (content->is_string()) return t.add({{"role", *role}, {"content", *content}}, param);
  if (!content->is_array())
    throw invalid_request(f.param("content"), f.param("content") + ": expected a string or an array of content "
                                                                   "blocks, got " + json_preview(*content));
  if (content->empty())
    throw invalid_request(f.param("content"), f.param("content") + ": must not be an empty array");
  if (*role == "user") return read_user(*content, f.param("content"), t, param);
  t.add(read_assistant(*content, ordered.at("content"), f.param("content")), param);
}

// The last message an assistant's: the reply continues it (Anthropic's prefill).
void read_messages(const FieldReader& f, const Ordered& ordered, Translation& t) {
  const Json* messages = f.get("messages");
  if (messages == nullptr) throw invalid_request("messages", "messages: required (a non-empty array of messages)");
  if (!messages->is_array() || messages->empty())
    throw invalid_request("messages", "messages: expected a non-empty array of messages, got " + json_preview(*messages));
  for (std::size_t i = 0; i < messages->size(); ++i) read_message((*messages)[i], ordered.at("messages").at(i), i, t);
  if (messages->back().value("role", "") == "assistant") t.chat["continue_final_message"] = true;
}

Json read_tool(const Json& tool, std::size_t i) {
  const std::string param = element_param("tools", i);
  if (!tool.is_object()) throw invalid_request(param, param + ": expected a tool object, got " + json_preview(tool));
  FieldReader f(tool, param + ".");
  const std::string type = f.string("type").value_or("custom");
  if (type != "custom")
    throw unsupported(f.param("type"), f.param("type") + ": server tools (" + quote_value(type) +
                                           ") are not supported; declare client tools with name and input_schema");
  const Json* schema = f.get("input_schema");
  if (schema == nullptr) throw invalid_request(f.param("input_schema"), f.param("input_schema") + ": required");
  Json function = {{"parameters", *schema}};
  if (const Json* name = f.get("name")) function["name"] = *name;
  if (const Json* description = f.get("description")) function["description"] = *description;
  return {{"type", "function"}, {"function", std::move(function)}};
}

void read_tool_choice(const FieldReader& f, Json& chat) {
  const Json* v = f.get("tool_choice");
  if (v == nullptr) return;
  if (!v->is_object())
    throw invalid_request("tool_choice", "tool_choice: expected an object {\"type\": auto|any|tool|none}, got " +
                                             json_preview(*v));
  FieldReader c(*v, "tool_choice.");
  const std::string type = c.string("type").value_or("");
  if (type == "auto") chat["tool_choice"] = "auto";
  else if (type == "any") chat["tool_choice"] = "required";
  else if (type == "none") chat["tool_choice"] = "none";
  else if (type == "tool") {
    auto name = c.string("name");
    if (!name) throw invalid_request("tool_choice.name", "tool_choice.name: required with type \"tool\"");
    chat["tool_choice"] = {{"type", "function"}, {"function", {{"name", *name}}}};
  } else {
    throw invalid_request("tool_choice.type", "tool_choice.type: " + quote_value(type) +
                                                  " is not one of auto, any, tool, none");
  }
  if (c.boolean("disable_parallel_tool_use").value_or(false)) chat["parallel_tool_calls"] = false;
}

void read_tools(const FieldReader& f, Translation& t) {
  if (const Json* tools = f.get("tools")) {
    if (!tools->is_array()) throw invalid_request("tools", "tools: expected an array of tools, got " + json_preview(*tools));
    for (std::size_t i = 0; i < tools->size(); ++i) t.chat["tools"].push_back(read_tool((*tools)[i], i));
  }
  read_tool_choice(f, t.chat);
}

void read_thinking(const FieldReader& f, Json& chat) {
  const Json* v = f.get("thinking");
  if (v == nullptr) return;
  if (!v->is_object()) throw invalid_request("thinking", "thinking: expected an object, got " + json_preview(*v));
  FieldReader t(*v, "thinking.");
  const std::string type = t.string("type").value_or("");
  if (type == "disabled") {
    chat["chat_template_kwargs"] = {{"enable_thinking", false}};
    return;
  }
  if (type != "enabled")
    throw invalid_request("thinking.type", "thinking.type: " + quote_value(type) + " is not one of enabled, disabled");
  auto budget = t.integer("budget_tokens");
  if (!budget || *budget < 1)
    throw invalid_request("thinking.budget_tokens", "thinking.budget_tokens: required, a positive integer");
  chat["chat_template_kwargs"] = {{"enable_thinking", true}};
}

void refuse_features(const FieldReader& f) {
  for (const char* name : {"mcp_servers", "container"})
    if (f.get(name) != nullptr) throw unsupported(name, std::string(name) + ": not supported by this server");
}

// Everything else: copied under the chat request's names (the chat parser checks the values).
void read_options(const FieldReader& f, MessagesRoute route, Translation& t) {
  const Json* max = f.get("max_tokens");
  if (route == MessagesRoute::kCreate) {
    if (max == nullptr) throw invalid_request("max_tokens", "max_tokens: required (the most tokens to generate)");
    t.chat["max_tokens"] = *max;
  }
  for (const char* name : {"temperature", "top_p", "top_k", "seed"})
    if (const Json* v = f.get(name)) t.chat[name] = *v;
  if (const Json* stops = f.get("stop_sequences")) {
    if (!stops->is_array())
      throw invalid_request("stop_sequences", "stop_sequences: expected an array of strings, got " + json_preview(*stops));
    t.chat["stop"] = *stops;
  }
  if (route == MessagesRoute::kCreate)
    if (auto stream = f.boolean("stream")) t.chat["stream"] = *stream;
}

// messages[k] of the chat request -> its Anthropic origin, in an error's param and message.
ApiError with_origins(ApiError e, const std::vector<std::string>& origins) {
  for (std::size_t k = 0; k < origins.size(); ++k) {
    const std::string chat = element_param("messages", k);
    auto names = [&](const std::string& s) { return s == chat || s.starts_with(chat + ".") || s.starts_with(chat + "["); };
    if (!names(e.param)) continue;
    e.param = origins[k] + e.param.substr(chat.size());
    if (e.message.starts_with(chat)) e.message = origins[k] + e.message.substr(chat.size());
    break;
  }
  return with_messages_names(std::move(e));
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

}  // namespace

ApiError with_messages_names(ApiError e) {
  constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {".function.parameters", ".input_schema"}, {".function.description", ".description"},
      {"tool_choice.function.name", "tool_choice.name"}, {".function.name", ".name"},
      {"parallel_tool_calls", "tool_choice.disable_parallel_tool_use"}, {"chat_template_kwargs", "thinking"}};
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
  const Json j = parse_json_object(body, limits);
  const Ordered ordered = parse_ordered_json(body, "body");  // the client's key order (tool schemas, tool_use input)
  FieldReader f(j);
  Translation t;
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  t.chat["model"] = *model;
  t.chat["messages"] = Json::array();
  read_system(f, t);
  read_messages(f, ordered, t);
  read_tools(f, t);
  read_thinking(f, t.chat);
  refuse_features(f);
  read_options(f, route, t);
  ApiRequest r;
  try {
    r = parse_chat_request(t.chat.dump(), limits);
  } catch (const ApiError& e) {
    throw with_origins(e, t.origins);
  }
  if (f.get("tools") != nullptr) {
    Ordered schemas = Ordered::array();
    for (const auto& tool : ordered.at("tools")) schemas.push_back({{"function", {{"parameters", tool.at("input_schema")}}}});
    keep_parameter_order(schemas, r.chat);
  }
  r.unknown_fields = unknown_fields(j, kMessagesFields);
  r.messages_api = true;
  return r;
}

}  // namespace ogai::serve
