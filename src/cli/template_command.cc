// `ogai template SOURCE --messages FILE [--tools FILE] [--add-generation-prompt | --continue-final-message]
//  [--var KEY=JSON]...`:
// renders a chat template (a chat_template.jinja, a tokenizer_config.json / chat_template.json,
// or a package directory) and prints the prompt to stdout with nothing added. A template error
// (syntax, raise_exception, a type error) prints its message to stderr and exits 1; unreadable
// or malformed input files exit 2.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/json_parse.h"
#include "chat/chat_template.h"
#include "chat/continue_final.h"
#include "cli/command.h"
#include "ogai/error.h"

namespace ogai::cli {
namespace {

namespace fs = std::filesystem;

struct TemplateArgs {
  std::string source, messages, tools;
  bool add_generation_prompt = false;
  bool continue_final_message = false;
  std::vector<std::string> vars;
};

int usage_error(const std::string& message) {
  std::fprintf(stderr, "ogai template: %s\n", message.c_str());
  return kExitUsage;
}

// Reads a JSON document from `path`; on failure prints why and returns false.
bool read_json_file(const std::string& path, const char* flag, chat::Json& out) {
  try {
    out = parse_json_bounded<chat::Json>(read_file(path), path);
    return true;
  } catch (const Error& e) {
    usage_error(std::string(flag) + " " + e.what());
  }
  return false;
}

int build_request(const TemplateArgs& a, chat::ChatRequest& request) {
  if (!read_json_file(a.messages, "--messages", request.messages)) return kExitUsage;
  if (!request.messages.is_array()) return usage_error("--messages " + a.messages + ": expected a JSON array of messages");
  if (!a.tools.empty()) {
    if (!read_json_file(a.tools, "--tools", request.tools)) return kExitUsage;
    if (!request.tools.is_array()) return usage_error("--tools " + a.tools + ": expected a JSON array of tool definitions");
  }
  request.add_generation_prompt = a.add_generation_prompt;
  for (const std::string& v : a.vars) {
    std::size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0) return usage_error("--var '" + v + "': expected KEY=JSON");
    try {
      request.variables[v.substr(0, eq)] = parse_json_bounded<chat::Json>(v.substr(eq + 1), "--var");
    } catch (const Error&) {
      return usage_error("--var '" + v + "': the value is not JSON (quote strings: KEY='\"text\"')");
    }
  }
  return kExitOk;
}

// The last message's text (a string content, or its text parts joined with "\n"), for
// --continue-final-message.
std::string final_content(const chat::ChatRequest& request) {
  if (request.messages.empty()) return {};
  const chat::Json& content = request.messages.back().value("content", chat::Json());
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array())
    for (const chat::Json& part : content)
      if (part.is_object() && part.value("text", chat::Json()).is_string())
        text += (text.empty() ? "" : "\n") + part["text"].get<std::string>();
  return text;
}

int run_template(const TemplateArgs& a) {
  if (a.add_generation_prompt && a.continue_final_message)
    return usage_error("--add-generation-prompt and --continue-final-message exclude each other");
  std::error_code ec;
  if (!fs::exists(a.source, ec)) return usage_error(a.source + ": " + (ec ? ec.message() : "no such file or directory"));
  chat::ChatRequest request;
  if (int rc = build_request(a, request); rc != kExitOk) return rc;
  std::string prompt;
  try {
    prompt = chat::ChatTemplate::load(a.source).render(request);
    if (a.continue_final_message) prompt = chat::continue_final_message(std::move(prompt), final_content(request));
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai template: %s\n", e.what());
    return kExitFailure;
  }
  write_text(prompt);
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace

void add_template_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("template", "render a chat template with messages and print the prompt");
  auto a = std::make_shared<TemplateArgs>();
  cmd->add_option("SOURCE", a->source, "chat_template.jinja, tokenizer_config.json, chat_template.json or a package directory")
      ->required();
  cmd->add_option("--messages", a->messages, "JSON file holding an array of messages")->required();
  cmd->add_option("--tools", a->tools, "JSON file holding an array of tool definitions");
  cmd->add_flag("--add-generation-prompt", a->add_generation_prompt, "end with the assistant turn's opening");
  cmd->add_flag("--continue-final-message", a->continue_final_message,
                "end inside the last message (cut what the template writes after its content), for the model to "
                "continue it");
  cmd->add_option("--var", a->vars, "extra template variable KEY=JSON (repeatable), e.g. --var enable_thinking=false")
      ->take_all()->allow_extra_args(false);
  cmd->callback([&result, a] { result.exit_code = run_template(*a); });
}

}  // namespace ogai::cli
