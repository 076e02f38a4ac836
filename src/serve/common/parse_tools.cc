#include "serve/common/parse_tools.h"

#include "serve/common/request_fields.h"

namespace ogai::serve {
namespace {

const RequestJson& object_field(const FieldReader& f, const char* name, const char* what) {
  const RequestJson* v = f.get(name);
  if (v == nullptr) throw invalid_request(f.param(name), f.param(name) + ": required (" + what + ")");
  if (!v->is_object())
    throw invalid_request(f.param(name), f.param(name) + ": expected " + what + ", got " + json_preview(*v));
  return *v;
}

}  // namespace

Tool read_function(const FieldReader& fn, const char* parameters_key, bool parameters_required) {
  Tool tool;
  auto name = fn.string("name");
  if (!name) throw invalid_request(fn.param("name"), fn.param("name") + ": required (the function's name)");
  tool.name = *name;
  tool.description = fn.string("description").value_or("");
  fn.boolean("strict");  // type-checked; ogai enforces forced calls either way
  const RequestJson* params = fn.get(parameters_key);
  if (params == nullptr && parameters_required)
    throw invalid_request(fn.param(parameters_key), fn.param(parameters_key) + ": required");
  if (params != nullptr) {
    if (!params->is_object())
      throw invalid_request(fn.param(parameters_key),
                            fn.param(parameters_key) + ": expected a JSON Schema object, got " + json_preview(*params));
    tool.parameters = params->dump();  // the client's key order (the DOM keeps it)
  }
  return tool;
}

namespace {

// A chat tool {"type": "function", "function": {name, description, parameters, strict}}.
Tool read_chat_tool(const FieldReader& f, const std::string& param) {
  const std::string type = f.string("type").value_or("");
  if (type != "function")
    throw invalid_request(f.param("type"), f.param("type") + ": expected \"function\", got " +
                                                (f.get("type") ? json_preview(*f.get("type")) : std::string("none")));
  FieldReader fn(object_field(f, "function", "an object with \"name\""), param + ".function.");
  return read_function(fn, "parameters", false);
}

// A chat tool_choice object {"type": "function", "function": {"name"}}.
std::string chat_forced_name(const FieldReader& choice) {
  if (choice.string("type").value_or("") != "function")
    throw invalid_request("tool_choice.type", "tool_choice.type: expected \"function\"");
  FieldReader fn(object_field(choice, "function", "an object with \"name\""), "tool_choice.function.");
  auto name = fn.string("name");
  if (!name) throw invalid_request("tool_choice.function.name", "tool_choice.function.name: required");
  return *name;
}

constexpr ToolSurface kChatTools{&read_chat_tool, &chat_forced_name, "a string or an object"};

ToolChoice read_tool_choice(const FieldReader& f, const ToolSurface& surface) {
  const RequestJson* v = f.get("tool_choice");
  if (v == nullptr) return {};
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s == "auto") return {ToolChoice::Mode::kAuto, ""};
    if (s == "none") return {ToolChoice::Mode::kNone, ""};
    if (s == "required") return {ToolChoice::Mode::kRequired, ""};
    throw invalid_request("tool_choice", "tool_choice: '" + s + "' is not one of auto, none, required, or an object");
  }
  if (!v->is_object())
    throw invalid_request("tool_choice",
                          std::string("tool_choice: expected ") + surface.choice_forms + ", got " + json_preview(*v));
  return {ToolChoice::Mode::kFunction, surface.forced_name(FieldReader(*v, "tool_choice."))};
}

}  // namespace

void read_tools(const FieldReader& f, ApiRequest& r, const ToolSurface& surface) {
  if (const RequestJson* tools = f.get("tools")) {
    if (!tools->is_array()) throw invalid_request("tools", "tools: expected an array of tools, got " + json_preview(*tools));
    for (std::size_t i = 0; i < tools->size(); ++i) {
      const RequestJson& t = (*tools)[i];
      const std::string param = element_param("tools", i);
      if (!t.is_object()) throw invalid_request(param, param + ": expected a tool object, got " + json_preview(t));
      r.chat.tools.push_back(surface.read_tool(FieldReader(t, param + "."), param));
    }
  }
  r.chat.tool_choice = read_tool_choice(f, surface);
  r.chat.parallel_tool_calls = f.boolean("parallel_tool_calls").value_or(true);
  read_template_kwargs(f, r.chat);
}

void read_template_kwargs(const FieldReader& f, ChatOptions& chat) {
  const RequestJson* v = f.get("chat_template_kwargs");
  if (v == nullptr) return;
  if (!v->is_object())
    throw invalid_request("chat_template_kwargs", "chat_template_kwargs: expected an object of template variables, got " +
                                                      json_preview(*v));
  for (const auto& [name, value] : v->items()) chat.template_kwargs[name] = value.dump();
}

namespace {

// reasoning_effort ("low", "medium", "high") reaches the template as the variable of that name
// (gpt-oss reads it); chat_template_kwargs.reasoning_effort wins.
void read_reasoning_effort(const FieldReader& f, ChatOptions& chat) {
  const RequestJson* v = f.get("reasoning_effort");
  if (v == nullptr || v->is_null()) return;
  if (!v->is_string() || (*v != "low" && *v != "medium" && *v != "high" && *v != "minimal"))
    throw invalid_request("reasoning_effort", "reasoning_effort: expected minimal, low, medium or high, got " +
                                                  json_preview(*v));
  chat.template_kwargs.emplace("reasoning_effort", v->dump());
}

}  // namespace

void read_chat_tools(const FieldReader& f, ApiRequest& r) {
  if (f.get("functions") != nullptr || f.get("function_call") != nullptr)
    throw unsupported(f.get("functions") ? "functions" : "function_call",
                      "the legacy functions / function_call fields are not supported; use tools and tool_choice");
  read_tools(f, r, kChatTools);
  read_reasoning_effort(f, r.chat);
  if (auto format = f.string("tool_call_format")) {
    r.chat.tool_call_format = parse_tool_call_format(*format);
    if (!r.chat.tool_call_format)
      throw invalid_request("tool_call_format",
                            "tool_call_format: '" + *format + "' is not one of hermes, llama3_json, mistral, qwen3_xml, "
                            "harmony, deepseek_r1, command_r, gemma4");
  }
  check_forced_call_format(r, "tool_choice");
}

}  // namespace ogai::serve
