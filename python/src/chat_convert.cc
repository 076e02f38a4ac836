#include "chat_convert.h"

#include "media_convert.h"

#include <string>

namespace ogai::python {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, where, what);
}

std::string json_text(py::handle value) {
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

py::dict as_dict(py::handle value, const std::string& where) {
  if (!py::isinstance<py::dict>(value)) bad(where, "expected a dict");
  return py::reinterpret_borrow<py::dict>(value);
}

std::string text_at(py::dict d, const char* key, const std::string& where, bool required = true) {
  if (!d.contains(key) || d[key].is_none()) {
    if (required) bad(where + "." + key, "expected a string");
    return {};
  }
  if (!PyUnicode_Check(d[key].ptr())) bad(where + "." + key, "expected a string");
  return d[key].cast<std::string>();
}

Tool tool_from(py::handle value, const std::string& where) {
  py::dict d = as_dict(value, where);
  std::string prefix = where;
  if (d.contains("function")) {  // {"type": "function", "function": {...}}
    if (d.contains("type") && text_at(d, "type", where) != "function") bad(where + ".type", "expected \"function\"");
    prefix = where + ".function";
    d = as_dict(d["function"], prefix);
  }
  Tool t;
  t.name = text_at(d, "name", prefix);
  t.description = text_at(d, "description", prefix, false);
  if (d.contains("parameters") && !d["parameters"].is_none()) {
    py::object p = d["parameters"];
    t.parameters = PyUnicode_Check(p.ptr()) ? p.cast<std::string>() : json_text(p);
  }
  return t;
}

ToolChoice tool_choice_from(py::handle value) {
  ToolChoice c;
  if (PyUnicode_Check(value.ptr())) {
    std::string s = value.cast<std::string>();
    if (s == "auto") c.mode = ToolChoice::Mode::kAuto;
    else if (s == "none") c.mode = ToolChoice::Mode::kNone;
    else if (s == "required") c.mode = ToolChoice::Mode::kRequired;
    else bad("tool_choice", "'" + s + "' is not one of auto, none, required (or {\"type\": \"function\", \"function\": {\"name\": ...}})");
    return c;
  }
  py::dict d = as_dict(value, "tool_choice");
  py::dict f = as_dict(d.contains("function") ? py::object(d["function"]) : py::object(py::none()), "tool_choice.function");
  c.mode = ToolChoice::Mode::kFunction;
  c.function = text_at(f, "name", "tool_choice.function");
  return c;
}

ToolCall tool_call_from(py::handle value, const std::string& where) {
  py::dict d = as_dict(value, where);
  py::dict f = as_dict(d.contains("function") ? py::object(d["function"]) : py::object(py::none()), where + ".function");
  ToolCall call;
  call.id = text_at(d, "id", where, false);
  call.name = text_at(f, "name", where + ".function");
  if (f.contains("arguments") && !f["arguments"].is_none()) {
    py::object a = f["arguments"];
    call.arguments = PyUnicode_Check(a.ptr()) ? a.cast<std::string>() : json_text(a);
  } else {
    call.arguments = "{}";
  }
  return call;
}

}  // namespace

ChatOptions chat_options_from(py::kwargs& kwargs) {
  ChatOptions o;
  auto take = [&](const char* key) -> py::object {
    if (!kwargs.contains(key)) return py::none();
    py::object v = kwargs[key];
    PyDict_DelItemString(kwargs.ptr(), key);
    return v;
  };
  if (py::object tools = take("tools"); !tools.is_none()) {
    if (!py::isinstance<py::list>(tools) && !py::isinstance<py::tuple>(tools)) bad("tools", "expected a list of tool dicts");
    std::size_t i = 0;
    for (py::handle t : tools) o.tools.push_back(tool_from(t, "tools[" + std::to_string(i++) + "]"));
  }
  if (py::object choice = take("tool_choice"); !choice.is_none()) o.tool_choice = tool_choice_from(choice);
  if (py::object parallel = take("parallel_tool_calls"); !parallel.is_none()) {
    if (!PyBool_Check(parallel.ptr())) bad("parallel_tool_calls", "expected True or False");
    o.parallel_tool_calls = parallel.cast<bool>();
  }
  if (py::object vars = take("chat_template_kwargs"); !vars.is_none()) {
    py::dict d = as_dict(vars, "chat_template_kwargs");
    for (auto [k, v] : d) {
      if (!PyUnicode_Check(k.ptr())) bad("chat_template_kwargs", "keys must be strings");
      o.template_kwargs[k.cast<std::string>()] = json_text(v);
    }
  }
  if (py::object format = take("tool_call_format"); !format.is_none()) {
    if (!PyUnicode_Check(format.ptr())) bad("tool_call_format", "expected a string");
    std::string name = format.cast<std::string>();
    o.tool_call_format = parse_tool_call_format(name);
    if (!o.tool_call_format) bad("tool_call_format", "'" + name + "' is not one of hermes, llama3_json, mistral");
  }
  return o;
}

std::vector<ChatMessage> chat_messages_from(py::handle messages) {
  if (!py::isinstance<py::sequence>(messages) || PyUnicode_Check(messages.ptr()))
    bad("messages", "expected a list of {\"role\", \"content\"} dicts");
  std::vector<ChatMessage> out;
  std::size_t i = 0;
  for (py::handle m : messages) {
    const std::string where = "messages[" + std::to_string(i++) + "]";
    if (!py::isinstance<py::dict>(m)) bad(where, "expected a dict, got " + std::string(Py_TYPE(m.ptr())->tp_name));
    py::dict d = py::reinterpret_borrow<py::dict>(m);
    ChatMessage message;
    message.role = text_at(d, "role", where);
    const bool has_calls = d.contains("tool_calls") && !d["tool_calls"].is_none();
    if (d.contains("content") && py::isinstance<py::list>(d["content"]))
      message.parts = content_parts_from(d["content"], where + ".content");
    else
      message.content = text_at(d, "content", where, /*required=*/!has_calls);
    if (has_calls) {
      py::object calls = d["tool_calls"];
      if (!py::isinstance<py::list>(calls) && !py::isinstance<py::tuple>(calls)) bad(where + ".tool_calls", "expected a list");
      std::size_t k = 0;
      for (py::handle c : calls) message.tool_calls.push_back(tool_call_from(c, where + ".tool_calls[" + std::to_string(k++) + "]"));
    }
    message.tool_call_id = text_at(d, "tool_call_id", where, false);
    message.name = text_at(d, "name", where, false);
    message.reasoning_content = text_at(d, "reasoning_content", where, false);
    out.push_back(std::move(message));
  }
  return out;
}

py::list tool_calls_list(const std::vector<ToolCall>& calls) {
  py::list out;
  for (const ToolCall& c : calls) {
    py::dict function;
    function["name"] = c.name;
    function["arguments"] = c.arguments;
    py::dict call;
    call["id"] = c.id;
    call["type"] = "function";
    call["function"] = function;
    out.append(call);
  }
  return out;
}

}  // namespace ogai::python
