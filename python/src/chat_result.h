// ogai.ChatResult: what Model.chat() returns: the generation (GenerationResult, as `result`) and
// its reply parsed through the chat prompt (content, reasoning_content, tool_calls; include/ogai/chat.h).
#pragma once

#include "ogai/ogai.h"

namespace ogai::python {

struct ChatResult {
  GenerationResult result;
  ChatReply reply;
};

}  // namespace ogai::python
