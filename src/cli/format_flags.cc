#include "cli/format_flags.h"

#include "base/error.h"
#include "base/file.h"

namespace ogai::cli {

void add_format_flags(CLI::App& cmd, FormatFlags& f) {
  auto* schema = cmd.add_option("--json-schema", f.json_schema_file, "constrain the output to this JSON Schema (a file)");
  auto* object = cmd.add_flag("--json-object", f.json_object, "constrain the output to a JSON object");
  auto* regex = cmd.add_option("--regex", f.regex, "constrain the output to a full match of this regular expression");
  auto* grammar = cmd.add_option("--grammar", f.grammar_file, "constrain the output to this GBNF grammar (a file)");
  schema->excludes(object)->excludes(regex)->excludes(grammar);
  object->excludes(regex)->excludes(grammar);
  regex->excludes(grammar);
}

std::optional<ResponseFormat> response_format(const FormatFlags& f) {
  auto read = [](const std::string& path, const char* flag) {
    try {
      return read_file(path);
    } catch (const Error& e) {
      fail(ErrorCode::kNotFound, flag, "{}", e.what());
    }
  };
  if (!f.json_schema_file.empty())
    return ResponseFormat{ResponseFormat::Kind::kJsonSchema, read(f.json_schema_file, "--json-schema"), true};
  if (f.json_object) return ResponseFormat{ResponseFormat::Kind::kJsonObject, "", true};
  if (!f.regex.empty()) return ResponseFormat{ResponseFormat::Kind::kRegex, f.regex, true};
  if (!f.grammar_file.empty())
    return ResponseFormat{ResponseFormat::Kind::kGrammar, read(f.grammar_file, "--grammar"), true};
  return std::nullopt;
}

}  // namespace ogai::cli
