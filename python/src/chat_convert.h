// Python values of a chat turn with tools -> the C++ API's ChatOptions and ChatMessages
// (include/ogai/chat.h), in the shapes OpenAI's Python client uses:
//   tools=[{"type": "function", "function": {"name", "description", "parameters": {...}}}, ...]
//   tool_choice="auto" | "none" | "required" | {"type": "function", "function": {"name": N}}
//   parallel_tool_calls=bool, chat_template_kwargs={...}, tool_call_format="hermes" | ...
//   messages: {"role", "content"} plus assistant "tool_calls" ([{"id", "type", "function":
//   {"name", "arguments" (JSON text or a dict)}}]) and tool "tool_call_id" / "name".
// Conversion only: the C++ API checks names, schemas and choices. A wrong shape raises
// ogai.InvalidArgumentError naming the keyword or element.
#pragma once

#include <vector>

#include <pybind11/pybind11.h>

#include "ogai/ogai.h"

namespace ogai::python {

namespace py = pybind11;

// Removes the chat keywords above from `kwargs` (so generate's keywords remain) into ChatOptions.
ChatOptions chat_options_from(py::kwargs& kwargs);

std::vector<ChatMessage> chat_messages_from(py::handle messages);

// A parsed reply's tool calls as OpenAI's dicts: [{"id", "type": "function", "function": {"name",
// "arguments": JSON text}}, ...].
py::list tool_calls_list(const std::vector<ToolCall>& calls);

}  // namespace ogai::python
