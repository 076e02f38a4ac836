#include "chat/tool_prompt.h"

#include "base/json_lenient.h"

#include <algorithm>
#include <cctype>

#include "base/error.h"

namespace ogai::chat {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

// Arguments as the JSON object templates print with tojson; text that is not JSON stays a string.
Json arguments_value(const std::string& arguments) {
  Json parsed = parse_json_or_discarded<Json>(arguments.empty() ? "{}" : arguments);
  return parsed.is_discarded() ? Json(arguments) : parsed;
}

// A message's text: its content, or its text parts joined.
std::string message_text(const ChatMessage& m) {
  if (m.parts.empty()) return m.content;
  std::string text;
  for (const ContentPart& p : m.parts) text += p.text;
  return text;
}

// The content templates read: the text, or, when the message has image / audio parts, the parts
// as Hugging Face's list ({"type": "text", "text": ...}, {"type": "image"}, {"type": "audio"}),
// which multimodal templates render as their placeholders.
Json message_content(const ChatMessage& m) {
  const bool media = std::any_of(m.parts.begin(), m.parts.end(),
                                 [](const ContentPart& p) { return p.kind != ContentPart::Kind::kText; });
  if (!media) return message_text(m);
  Json parts = Json::array();
  for (const ContentPart& p : m.parts) {
    if (p.kind == ContentPart::Kind::kText)
      parts.push_back({{"type", "text"}, {"text", p.text}});
    else
      parts.push_back({{"type", p.kind == ContentPart::Kind::kImage ? "image" : "audio"}});
  }
  return parts;
}

Json message_json(const ChatMessage& m) {
  Json j = {{"role", m.role}, {"content", message_content(m)}};
  if (!m.tool_calls.empty()) {
    Json calls = Json::array();
    for (const ToolCall& c : m.tool_calls)
      calls.push_back({{"id", c.id}, {"type", "function"},
                       {"function", {{"name", c.name}, {"arguments", arguments_value(c.arguments)}}}});
    j["tool_calls"] = std::move(calls);
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.reasoning_content.empty()) j["reasoning_content"] = m.reasoning_content;
  return j;
}

// ogai's own description of the tools, for templates that do not describe them.
std::string tools_description(const Json& tools, const ToolCallSyntax& syntax) {
  std::string text =
      "You can call functions to help with the request. The functions you can call are listed, one JSON "
      "definition per line, between <tools> and </tools>:\n<tools>\n";
  for (const Json& t : tools) text += t.dump() + "\n";
  text += "</tools>\nTo call functions, answer with only the calls, written as:\n";
  text += write_tool_calls(syntax, {{"", "FUNCTION_NAME", "{ARGUMENTS}"}});
  text += "\nwhere FUNCTION_NAME is a function's name and {ARGUMENTS} a JSON object of its arguments.";
  return text;
}

void add_description(Json& messages, const Json& tools, const ToolCallSyntax& syntax) {
  const std::string text = tools_description(tools, syntax);
  if (!messages.empty() && messages[0]["role"] == "system") {
    messages[0]["content"] = messages[0]["content"].get<std::string>() + "\n\n" + text;
    return;
  }
  messages.insert(messages.begin(), Json{{"role", "system"}, {"content", text}});
}

}  // namespace

Json tool_definitions(const std::vector<Tool>& tools) {
  Json out = Json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const Tool& t = tools[i];
    const std::string at = "tools[" + std::to_string(i) + "].function.";
    if (!valid_name(t.name))
      fail(ErrorCode::kInvalidArgument, at + "name", "'{}' is not a function name (1 to 64 of A-Z a-z 0-9 _ -)", t.name);
    Json params = Json::object({{"type", "object"}, {"properties", Json::object()}});
    if (!t.parameters.empty()) {
      params = parse_json_or_discarded<Json>(t.parameters);
      if (params.is_discarded() || !params.is_object())
        fail(ErrorCode::kInvalidArgument, at + "parameters", "expected a JSON Schema object");
    }
    for (std::size_t k = 0; k < i; ++k)
      if (tools[k].name == t.name) fail(ErrorCode::kInvalidArgument, at + "name", "'{}' is defined twice", t.name);
    Json function = {{"name", t.name}};
    if (!t.description.empty()) function["description"] = t.description;
    function["parameters"] = std::move(params);
    out.push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

ChatRequest tool_chat_request(std::span<const ChatMessage> messages, const ChatOptions& options, const Json& tools,
                              const TemplateToolSupport& support, const ToolCallSyntax& syntax) {
  ChatRequest r;
  r.add_generation_prompt = options.add_generation_prompt;
  bool previous_tool = false;
  for (const ChatMessage& m : messages) {
    Json j = message_json(m);
    if (!support.tool_calls && !m.tool_calls.empty()) {
      std::string text = message_text(m).empty() ? "" : message_text(m) + "\n";
      j["content"] = text + write_tool_calls(syntax, m.tool_calls);
    }
    const bool tool = m.role == "tool";
    if (tool && !support.tool_role) {
      std::string wrapped = "<tool_response>\n" + message_text(m) + "\n</tool_response>";
      if (previous_tool) {
        Json& last = r.messages.back();
        last["content"] = last["content"].get<std::string>() + "\n" + wrapped;
      } else {
        r.messages.push_back({{"role", "user"}, {"content", wrapped}});
      }
    } else {
      r.messages.push_back(std::move(j));
    }
    previous_tool = tool && !support.tool_role;
  }
  if (!tools.empty()) {
    if (support.tools) r.tools = tools;
    else add_description(r.messages, tools, syntax);
  }
  return r;
}

}  // namespace ogai::chat
