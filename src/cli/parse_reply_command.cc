// `ogai parse-reply SOURCE [--prefix TEXT] [--tools FILE]`: reads a raw model reply on stdin and
// prints one JSON object in transformers' parse_response shape ({"role", "content", "thinking",
// "tool_calls": [{"type": "function", "function": {"name", "arguments": {...}}}]}, keys with
// nothing in them omitted). SOURCE: a package directory (its tokenizer_config.json
// response_template or response_schema, else the built-in detected from its chat template), a
// tokenizer_config.json, a JSON file holding {"response_template": {...}}, or builtin:NAME.
// --prefix is the prompt text before the reply (read from the start anchor on). --tools types
// string arguments by each tool's JSON Schema (transformers' casting). A malformed template exits
// 1 naming the key and its path; a reply that does not fit is content; unreadable input exits 2.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "base/file.h"
#include "base/input_file.h"
#include "base/json_lenient.h"
#include "base/json_parse.h"
#include "chat/chat_template.h"
#include "chat/reply/builtin_templates.h"
#include "chat/reply/reply_layout.h"
#include "chat/reply/response_parser.h"
#include "cli/command.h"
#include "ogai/error.h"

namespace ogai::cli {
namespace {

namespace fs = std::filesystem;
using chat::reply::Json;

struct ParseReplyArgs {
  std::string source, prefix, tools;
};

ReplyLayout layout_of(const std::string& source) {
  if (source.starts_with("builtin:")) {
    ReplyLayout l;
    l.tmpl = chat::reply::builtin_template(source.substr(8), false);
    l.origin = source;
    return l;
  }
  if (auto l = chat::reply::load_reply_layout(source)) return std::move(*l);
  if (fs::is_directory(source))
    return chat::reply::builtin_layout(chat::ChatTemplate::load(source).select(chat::ChatRequest{}).source());
  throw Error(ErrorCode::kInvalidArgument, source, "holds neither response_template nor response_schema");
}

// A string argument the tool's schema types as integer, number or boolean becomes that value.
Json cast(const Json& value, const Json& schema) {
  if (!value.is_string() || !schema.is_object()) return value;
  const std::string type = schema.value("type", std::string());
  const std::string s = value.get<std::string>();
  if (type == "boolean") return s == "true" ? Json(true) : s == "false" ? Json(false) : value;
  if (type == "integer" || type == "number") {
    Json n = parse_json_or_discarded<Json>(s);
    if (n.is_number() && (type == "number" || n.is_number_integer())) return n;
  }
  return value;
}

void type_arguments(Json& message, const Json& tools) {
  if (!message.contains("tool_calls")) return;
  for (Json& call : message["tool_calls"]) {
    Json& f = call["function"];
    for (const Json& tool : tools) {
      const Json& def = tool.contains("function") ? tool["function"] : tool;
      if (!def.is_object() || def.value("name", "") != f.value("name", "") || !f["arguments"].is_object()) continue;
      const Json props = def.value("parameters", Json::object()).value("properties", Json::object());
      for (auto& [k, v] : f["arguments"].items())
        if (props.contains(k)) v = cast(v, props[k]);
    }
  }
}

int run_parse_reply(const ParseReplyArgs& a) {
  std::error_code ec;
  if (!a.source.starts_with("builtin:") && !fs::exists(a.source, ec)) {
    std::fprintf(stderr, "ogai parse-reply: %s: %s\n", a.source.c_str(),
                 ec ? ec.message().c_str() : "no such file or directory");
    return kExitUsage;
  }
  Json tools = Json::array();
  if (!a.tools.empty()) {
    try {
      tools = parse_json_bounded<Json>(read_file(a.tools, kMaxTextInputBytes), a.tools);
    } catch (const Error& e) {
      std::fprintf(stderr, "ogai parse-reply: --tools %s\n", e.what());
      return kExitUsage;
    }
    if (!tools.is_array()) {
      std::fprintf(stderr, "ogai parse-reply: --tools %s: expected a JSON array of tool definitions\n", a.tools.c_str());
      return kExitUsage;
    }
  }
  std::string reply;
  try {
    // A SOURCE file is read by type (a FIFO or a device is refused, not waited on); the reply
    // under a budget.
    if (!a.source.starts_with("builtin:") && !fs::is_directory(a.source)) ::close(open_regular_file(a.source));
    reply = read_stdin("standard input (the reply)", kMaxTextInputBytes);
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai parse-reply: %s\n", e.what());
    return kExitUsage;
  }
  Json message;
  try {
    const ReplyLayout layout = layout_of(a.source);
    if (layout.tmpl) {
      chat::reply::ResponseParser parser(layout.tmpl, a.prefix);
      parser.feed(reply);
      parser.finish();
      message = parser.message();
    } else {
      message = layout.schema->parse(reply);
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "ogai parse-reply: %s\n", e.what());
    return kExitFailure;
  }
  type_arguments(message, tools);
  write_text(message.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n");
  return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
}

}  // namespace

void add_parse_reply_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("parse-reply", "split a raw model reply (stdin) into content, thinking and tool calls");
  auto a = std::make_shared<ParseReplyArgs>();
  cmd->add_option("SOURCE", a->source,
                  "package directory, tokenizer_config.json, a JSON file holding response_template, or builtin:NAME")
      ->required();
  cmd->add_option("--prefix", a->prefix, "the prompt text before the reply (for the template's start_anchor)");
  cmd->add_option("--tools", a->tools, "JSON file holding the tool definitions (types string arguments)");
  cmd->callback([&result, a] { result.exit_code = run_parse_reply(*a); });
}

}  // namespace ogai::cli
