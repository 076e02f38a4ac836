// The tool-call formats ogai reads and forces, in one table: each format's text around a call
// (markers, separators, the key holding the arguments), how it is recognized in a template's
// source, and which parts of a tool conversation a template renders itself. Pure data and
// string scans; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ogai/chat.h"

namespace ogai::chat {

// A reply holding calls is: begin, then each call as call_open + CALL + call_close with
// separator between calls, then end. CALL is {"name": NAME, "<arguments_key>": {...}}, or, when
// call_template is set, call_template with {name} and {arguments} replaced (call_open,
// call_close and arguments_key unused). `forced` false: the format's calls cannot be forced (its
// arguments are not JSON).
struct ToolCallSyntax {
  ToolCallFormat format;
  std::string_view name;           // "hermes", ...
  std::string_view begin;          // once before the first call
  std::string_view call_open;      // before each call
  std::string_view call_close;
  std::string_view separator;      // what a forced reply writes between calls
  std::string_view end;
  std::string_view arguments_key;  // "arguments" or "parameters"
  std::string_view detect;         // a template whose source holds this uses the format
  std::string_view marker;         // starts a call section in the reply ("": only "{" at its start)
  std::string_view call_template = {};
  bool forced = true;
};

const ToolCallSyntax& tool_call_syntax(ToolCallFormat format);

// `calls` written in the format, exactly as a forced reply spells them (arguments as given).
std::string write_tool_calls(const ToolCallSyntax& syntax, const std::vector<ToolCall>& calls);

// The format of the built-in response template detected from the source
// (chat/reply/builtin_templates.h); hermes when nothing more specific shows.
ToolCallFormat detect_tool_call_format(std::string_view template_source);

// Which parts of a tool conversation the template renders (a scan of its source): tool
// definitions (it reads `tools`), assistant `tool_calls`, and messages of role "tool". What it
// does not render, ogai writes into the messages (tool_prompt.h).
struct TemplateToolSupport {
  bool tools = false;
  bool tool_calls = false;
  bool tool_role = false;
};
TemplateToolSupport template_tool_support(std::string_view template_source);

// Reasoning markers: <think> ... </think> (Qwen3, SmolLM3, DeepSeek-R1 style), when the template
// source holds the opening one; empty views otherwise.
struct ReasoningMarkers {
  std::string_view open;
  std::string_view close;
};
ReasoningMarkers detect_reasoning_markers(std::string_view template_source);

}  // namespace ogai::chat
