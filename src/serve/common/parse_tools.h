// The chat request's tool and template fields into ApiRequest::chat (ogai::ChatOptions):
// `tools` (a list of {"type": "function", "function": {"name", "description", "parameters",
// "strict"}}), `tool_choice` ("auto", "none", "required" or {"type": "function", "function":
// {"name"}}), `parallel_tool_calls`, `chat_template_kwargs` (an object of template variables)
// and ogai's extension `tool_call_format` ("hermes", "llama3_json", "mistral"; default: detected
// from the template). Shapes are checked here (400 naming the field, e.g.
// "tools[1].function.name"); names, schemas (fail closed) and the choice against the tools are
// checked by Model::prepare_chat when the prompt is built (serve/common/prompt.h). Schemas keep the
// client's key order (the request DOM is ordered). The legacy
// `functions` / `function_call` fields are refused. Internal to serve.
#pragma once

#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {

void read_chat_tools(const FieldReader& fields, ApiRequest& request);

// A function's fields: name (required), description, strict (type-checked) and its JSON Schema
// under `parameters_key` ("parameters"; Anthropic's "input_schema"), kept as the client wrote it.
// Errors name fn's fields (its prefix). Each surface's tool shape calls this on its own object.
Tool read_function(const FieldReader& fn, const char* parameters_key, bool parameters_required);

// What differs between the surfaces that take function tools (chat completions, Responses): how
// one tool object is read (`tool` reads the object at `param`, e.g. "tools[1]"; it is an object)
// and a forced tool_choice object's function name (`choice` reads the tool_choice object, its
// type included); `choice_forms` names tool_choice's forms in the error for another JSON type.
struct ToolSurface {
  Tool (*read_tool)(const FieldReader& tool, const std::string& param);
  std::string (*forced_name)(const FieldReader& choice);
  const char* choice_forms;
};

// tools, tool_choice ("auto", "none", "required" or the surface's object), parallel_tool_calls
// and chat_template_kwargs into request.chat, errors naming the field.
void read_tools(const FieldReader& f, ApiRequest& request, const ToolSurface& surface);

// chat_template_kwargs: an object of template variables (values as JSON text).
void read_template_kwargs(const FieldReader& f, ChatOptions& chat);

}  // namespace ogai::serve
