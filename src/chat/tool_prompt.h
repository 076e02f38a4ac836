// A chat turn with tools as the ChatRequest a template renders: messages and tool definitions in
// OpenAI's JSON shape (assistant tool_calls with their arguments as JSON objects, as Hugging Face
// templates expect), plus what the template cannot render written into the messages themselves:
// a template that does not read `tools` gets ogai's description of the tools and the call format
// in the system message; one that ignores `tool_calls` gets the calls as the assistant's text, in
// the format; one without a "tool" role gets tool results as user messages wrapped in
// <tool_response> ... </tool_response> (consecutive results in one message). Pure functions.
#pragma once

#include <span>

#include "chat/chat_template.h"
#include "chat/tool_call_format.h"
#include "ogai/chat.h"

namespace ogai::chat {

// tools[i] as {"type": "function", "function": {"name", "description", "parameters"}}. Throws
// ogai::Error kInvalidArgument naming "tools[i].function.<field>" (a bad name, parameters that are
// not a JSON object).
Json tool_definitions(const std::vector<Tool>& tools);

ChatRequest tool_chat_request(std::span<const ChatMessage> messages, const ChatOptions& options, const Json& tools,
                              const TemplateToolSupport& support, const ToolCallSyntax& syntax);

}  // namespace ogai::chat
