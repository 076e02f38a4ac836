// `ogai tokenize SOURCE [--text TEXT] [--no-special] [--json]`: prints the ids of a text as a
// JSON array on one line. `ogai tokenize SOURCE --decode [--skip-special]`: reads a JSON array
// of ids from stdin and prints their text with no added newline. SOURCE is a tokenizer.json or a
// package directory; without --text the text is all of stdin, as bytes.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <sstream>

#include "base/error.h"
#include "base/file.h"
#include "base/input_file.h"
#include "base/json_parse.h"
#include "cli/command.h"
#include "tokenizer/tokenizer.h"

namespace ogai::cli {
namespace {

struct TokenizeArgs {
  std::string source;
  std::optional<std::string> text;
  bool no_special = false;
  bool json = false;  // accepted for symmetry with other commands: the ids are always JSON
  bool decode = false;
  bool skip_special = false;
};

std::string stdin_text() { return read_stdin("standard input", kMaxTextInputBytes); }

std::vector<std::int32_t> parse_ids(const std::string& text) {
  nlohmann::json j;
  try {
    j = parse_json_bounded<nlohmann::json>(text, "stdin");
  } catch (const Error& e) {
    fail(ErrorCode::kInvalidArgument, "stdin", "expected a JSON array of token ids: {}", e.message());
  }
  if (!j.is_array()) fail(ErrorCode::kInvalidArgument, "stdin", "expected a JSON array of token ids");
  std::vector<std::int32_t> ids;
  for (std::size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer() || j[i].get<std::int64_t>() < INT32_MIN || j[i].get<std::int64_t>() > INT32_MAX)
      fail(ErrorCode::kInvalidArgument, "stdin", "element {} of the id array is not a 32-bit integer: {}", i,
           j[i].dump());
    ids.push_back(j[i].get<std::int32_t>());
  }
  return ids;
}

int run_tokenize(const TokenizeArgs& args) {
  tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(args.source);
  if (args.decode) {
    std::string text = tok.decode(parse_ids(stdin_text()), args.skip_special);
    write_text(text);
    return kExitOk;
  }
  std::string text = args.text ? *args.text : stdin_text();
  std::vector<std::int32_t> ids = tok.encode(text, !args.no_special);
  std::string line = "[";
  for (std::size_t i = 0; i < ids.size(); ++i) line += (i ? "," : "") + std::to_string(ids[i]);
  line += "]\n";
  write_text(line);
  return kExitOk;
}

}  // namespace

void add_tokenize_command(CLI::App& app, CommandResult& result) {
  auto* cmd = app.add_subcommand("tokenize", "encode text to token ids (or --decode ids to text) with a tokenizer.json");
  auto args = std::make_shared<TokenizeArgs>();
  cmd->add_option("SOURCE", args->source, "a tokenizer.json or a package directory holding one")->required();
  auto* text = cmd->add_option_function<std::string>("--text", [args](const std::string& t) { args->text = t; },
                                                     "the text to encode (default: all of stdin, as bytes)");
  auto* no_special = cmd->add_flag("--no-special", args->no_special, "do not add the post-processor's special tokens");
  cmd->add_flag("--json", args->json, "print the ids as a JSON array (the default output)");
  auto* decode = cmd->add_flag("--decode", args->decode, "read a JSON array of ids from stdin and print their text");
  auto* skip = cmd->add_flag("--skip-special", args->skip_special, "with --decode: leave special tokens out");
  decode->excludes(text)->excludes(no_special);
  skip->needs(decode);
  cmd->callback([&result, args] { result.exit_code = run_tokenize(*args); });
}

}  // namespace ogai::cli
