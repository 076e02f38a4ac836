// ogai.ChatStream (chat_stream.h) and its binding.
#include "chat_stream.h"

#include <pybind11/stl.h>

#include "bindings.h"
#include "convert.h"

namespace ogai::python {

ChatStream::ChatStream(std::unique_ptr<TextStream> text, ChatPrompt prompt)
    : text_(std::move(text)), prompt_(std::move(prompt)), parser_(prompt_) {}

std::optional<ChatReplyDelta> ChatStream::next() {
  while (!finished_) {
    std::optional<std::string> piece = text_->next();
    ChatReplyDelta delta;
    if (piece) {
      delta = parser_.feed(*piece);
    } else {
      finished_ = true;
      delta = parser_.finish();
      if (const GenerationResult* r = text_->result()) result_ = ChatResult{*r, parser_.reply()};
    }
    if (!delta.empty()) return delta;
  }
  return std::nullopt;
}

namespace {

// OpenAI's delta shape: only the fields this piece carries.
py::dict delta_dict(const ChatReplyDelta& d) {
  py::dict out;
  if (!d.content.empty()) out["content"] = to_str(d.content);
  if (!d.reasoning_content.empty()) out["reasoning_content"] = to_str(d.reasoning_content);
  if (!d.tool_calls.empty()) {
    py::list calls;
    for (const ToolCallDelta& c : d.tool_calls) {
      py::dict call, function;
      call["index"] = c.index;
      if (!c.id.empty()) {
        call["id"] = c.id;
        call["type"] = "function";
        function["name"] = c.name;
      }
      function["arguments"] = to_str(c.arguments);
      call["function"] = function;
      calls.append(call);
    }
    out["tool_calls"] = calls;
  }
  return out;
}

py::dict next_delta(ChatStream& stream) {
  std::optional<ChatReplyDelta> delta;
  {
    py::gil_scoped_release release;
    delta = stream.next();
  }
  if (!delta) throw py::stop_iteration();
  return delta_dict(*delta);
}

}  // namespace

void bind_chat_stream(py::module_& m) {
  py::class_<ChatStream>(m, "ChatStream",
                         "An iterator of reply deltas of one running chat generation with tools, as OpenAI streams "
                         "them: {'content'}, {'reasoning_content'} or {'tool_calls': [{'index', 'id', 'type', "
                         "'function': {'name', 'arguments'}}]} (a call's first delta carries its id and name, later "
                         "ones argument text). Leaving it early cancels the generation; .result holds the ChatResult "
                         "once it has ended.")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &next_delta)
      .def("close", &ChatStream::close, py::call_guard<py::gil_scoped_release>(),
           "cancel the generation if it still runs and wait for it to stop")
      .def_property_readonly(
          "result",
          [](const ChatStream& s) -> py::object {
            const ChatResult* r = s.result();
            return r ? py::cast(*r) : py::none();
          },
          "the ChatResult once every delta was read, else None")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](ChatStream& s, py::args) {
        py::gil_scoped_release release;
        s.close();
      });
}

}  // namespace ogai::python
