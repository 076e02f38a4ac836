// The token ids a parsed request generates from, with the checks that need the model: chat
// messages go through Model::prepare_chat (tools, tool choice, template variables; it sets
// request.chat_prompt, and a forced tool call's constraint as options.response_format; a bad
// tool, schema or variable is a 400 naming its field, an unenforceable schema keyword a 400
// `unsupported`) and the package's chat template (add_generation_prompt,
// continue_final_message), and are tokenized without special tokens (the template writes them),
// as `ogai generate --chat` does; a text prompt is tokenized with them; ids must be in the
// vocabulary; the prompt must leave room in the context (400 context_length_exceeded); logit_bias
// ids must be in the vocabulary. Throws ApiError.
// Thread-safe (uses only the Model's const API).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ogai/ogai.h"
#include "serve/common/api_request.h"

namespace ogai::serve {

std::vector<std::int32_t> prompt_ids(const Model& model, ApiRequest& request);

// The chat prompt whose reply is parsed (content, reasoning, tool calls): set when the template
// has a reasoning section or tools were offered (after prompt_ids()); else null, and the reply's
// content is the text as generated.
const ChatPrompt* parsed_prompt(const ApiRequest& request);

// An engine error refusing a media part (kUnsupported at "messages[i].parts[j]" or "media[k]") as
// a 400 `unsupported` naming the part where the client wrote it (its MediaInput::origin); nullopt
// for any other error.
std::optional<ApiError> media_refusal(const Error& error, const ApiRequest& request);

}  // namespace ogai::serve
