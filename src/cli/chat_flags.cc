#include "cli/chat_flags.h"

#include "base/json_lenient.h"
#include "base/json_parse.h"

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/json_ordered.h"
#include "serve/common/api_request.h"
#include "serve/common/parse_tools.h"

namespace ogai::cli {
namespace {

nlohmann::json read_tools(const std::string& path) {
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error& e) {
    fail(ErrorCode::kNotFound, "--tools", "{}", e.what());
  }
  auto tools = parse_json_or_discarded<nlohmann::json>(text);
  if (tools.is_discarded()) fail(ErrorCode::kInvalidArgument, "--tools", "{}: not JSON", path);
  return tools;
}

nlohmann::json tool_choice(const std::string& choice) {
  if (choice == "auto" || choice == "none" || choice == "required") return choice;
  return {{"type", "function"}, {"function", {{"name", choice}}}};
}

// KEY=JSON into the chat_template_kwargs object.
void add_var(nlohmann::json& kwargs, const std::string& v) {
  const auto eq = v.find('=');
  if (eq == std::string::npos || eq == 0) fail(ErrorCode::kInvalidArgument, "--var", "'{}': expected KEY=JSON", v);
  auto value = parse_json_or_discarded<nlohmann::json>(v.substr(eq + 1));
  if (value.is_discarded())
    fail(ErrorCode::kInvalidArgument, "--var", "'{}': the value is not JSON (quote strings: KEY='\"text\"')", v);
  kwargs[v.substr(0, eq)] = std::move(value);
}

}  // namespace

void add_chat_flags(CLI::App& cmd, ChatFlags& f) {
  cmd.add_option("--tools", f.tools_file, "with --chat: offer these tools (a JSON file: an array of OpenAI tools)");
  cmd.add_option("--tool-choice", f.tool_choice,
                 "with --tools: auto (default), none, required, or a function's name (forced calls)");
  cmd.add_option("--tool-call-format", f.tool_call_format,
                 "with --tools: hermes, llama3_json, mistral, qwen3_xml, harmony, deepseek_r1, command_r or gemma4 "
                 "(default: detected from the chat template)");
  cmd.add_option("--var", f.vars, "with --chat: template variable KEY=JSON (repeatable), e.g. --var enable_thinking=false");
}

ChatOptions chat_options(const ChatFlags& f) {
  nlohmann::json body = nlohmann::json::object();
  if (!f.tools_file.empty()) body["tools"] = read_tools(f.tools_file);
  if (!f.tool_choice.empty()) body["tool_choice"] = tool_choice(f.tool_choice);
  if (!f.tool_call_format.empty()) body["tool_call_format"] = f.tool_call_format;
  nlohmann::json kwargs = nlohmann::json::object();
  for (const std::string& v : f.vars) add_var(kwargs, v);
  if (!kwargs.empty()) body["chat_template_kwargs"] = std::move(kwargs);
  serve::ApiRequest request;
  try {
    serve::RequestJson fields(body);  // the request DOM keeps key order: the tools' schemas as written
    if (!f.tools_file.empty()) fields["tools"] = parse_ordered_json(read_file(f.tools_file), f.tools_file);
    serve::read_chat_tools(serve::FieldReader(fields), request);
  } catch (const serve::ApiError& e) {
    const char* flag = e.param.starts_with("tool_choice") ? "--tool-choice"
                       : e.param.starts_with("tool_call_format") ? "--tool-call-format"
                                                                 : "--tools";
    fail(ErrorCode::kInvalidArgument, flag, "{}", e.message);
  }
  return request.chat;
}

}  // namespace ogai::cli
