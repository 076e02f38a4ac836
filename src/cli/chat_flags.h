// Chat flags of `ogai generate --chat`: --tools FILE (a JSON array of OpenAI tools), --tool-choice
// auto|none|required|NAME, --tool-call-format hermes|llama3_json|mistral (default: detected from
// the template) and --var KEY=JSON (a template variable, e.g. enable_thinking=false; repeatable),
// read into ogai::ChatOptions with the server's checks (docs/structured_output.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "ogai/chat.h"

namespace ogai::cli {

struct ChatFlags {
  std::string tools_file;
  std::string tool_choice;
  std::string tool_call_format;
  std::vector<std::string> vars;
  bool any() const { return !tools_file.empty() || !tool_choice.empty() || !tool_call_format.empty() || !vars.empty(); }
};

void add_chat_flags(CLI::App& cmd, ChatFlags& flags);
// The options the flags ask for. ogai::Error kInvalidArgument naming the flag (an unreadable file,
// a malformed tool, a value that is not JSON).
ChatOptions chat_options(const ChatFlags& flags);

}  // namespace ogai::cli
