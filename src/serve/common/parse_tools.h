// The chat request's tool and template fields into ApiRequest::chat (ogai::ChatOptions):
// `tools` (a list of {"type": "function", "function": {"name", "description", "parameters",
// "strict"}}), `tool_choice` ("auto", "none", "required" or {"type": "function", "function":
// {"name"}}), `parallel_tool_calls`, `chat_template_kwargs` (an object of template variables)
// and ogai's extension `tool_call_format` ("hermes", "llama3_json", "mistral"; default: detected
// from the template). Shapes are checked here (400 naming the field, e.g.
// "tools[1].function.name"); names, schemas (fail closed) and the choice against the tools are
// checked by Model::prepare_chat when the prompt is built (serve/common/prompt.h). The legacy
// `functions` / `function_call` fields are refused. Internal to serve.
#pragma once

#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"

namespace ogai::serve {

void read_chat_tools(const FieldReader& fields, ApiRequest& request);

// The request's DOM sorts object keys; templates print a tool's `parameters` (`tojson`) in the
// order the client wrote them, as transformers does. After read_chat_tools accepted `tools`, this
// re-serializes each tool's parameters from `tools` read with its key order kept (the same
// array, parsed as nlohmann::ordered_json). Shapes were checked already; anything else is left.
void keep_parameter_order(const nlohmann::ordered_json& tools, ChatOptions& chat);

}  // namespace ogai::serve
