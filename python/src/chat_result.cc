// ogai.ChatResult (chat_result.h).
#include "chat_result.h"

#include <pybind11/stl.h>

#include "bindings.h"
#include "chat_convert.h"
#include "convert.h"

namespace ogai::python {

void bind_chat_result(py::module_& m) {
  py::class_<ChatResult>(m, "ChatResult",
                         "What Model.chat() produced: the reply parsed into content, reasoning and tool calls; "
                         "str(r) is the content.")
      .def_property_readonly("content", [](const ChatResult& r) { return to_str(r.reply.content); },
                             "the reply's text outside reasoning and tool calls")
      .def_property_readonly("reasoning_content", [](const ChatResult& r) { return to_str(r.reply.reasoning_content); },
                             "the reasoning section's text (\"\" when there is none)")
      .def_property_readonly("tool_calls", [](const ChatResult& r) { return tool_calls_list(r.reply.tool_calls); },
                             "[{'id', 'type': 'function', 'function': {'name', 'arguments' (JSON text)}}, ...]")
      .def_property_readonly("finish_reason", [](const ChatResult& r) -> std::string {
            return r.reply.tool_calls.empty() ? finish_reason_name(r.result.finish_reason) : "tool_calls";
          }, "'tool_calls' when the reply holds calls, else the generation's ('stop', 'length', 'eos', 'cancelled')")
      .def_property_readonly("text", [](const ChatResult& r) { return to_str(r.result.text); },
                             "the generated text as it came (markers and calls included)")
      .def_property_readonly("token_ids", [](const ChatResult& r) { return r.result.ids; }, "generated ids")
      .def_property_readonly("prompt_token_ids", [](const ChatResult& r) { return r.result.prompt_ids; },
                             "the rendered prompt's ids")
      .def_readonly("result", &ChatResult::result, "the GenerationResult (timings, logprobs, ...)")
      .def("__str__", [](const ChatResult& r) { return to_str(r.reply.content); })
      .def("__repr__", [](const ChatResult& r) {
        return "ChatResult(content=" + py::repr(to_str(r.reply.content)).cast<std::string>() + ", tool_calls=" +
               std::to_string(r.reply.tool_calls.size()) + ")";
      });
}

}  // namespace ogai::python
