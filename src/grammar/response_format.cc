#include "grammar/response_format.h"

#include "base/error.h"
#include "grammar/gbnf.h"
#include "grammar/json_rules.h"
#include "grammar/json_schema.h"
#include "grammar/regex.h"
#include "grammar/tool_call_grammar.h"

namespace ogai::grammar {
namespace {

int whitespace(const ResponseFormat& format) {
  if (format.whitespace < 0 || format.whitespace > kMaxWhitespace)
    fail(ErrorCode::kInvalidArgument, "response_format.whitespace", "{} is not in [0, {}]", format.whitespace,
         kMaxWhitespace);
  return format.whitespace;
}

}  // namespace

std::shared_ptr<const CompiledGrammar> compile_response_format(const ResponseFormat& format,
                                                               std::vector<UnenforcedKeyword>* unenforced) {
  switch (format.kind) {
    case ResponseFormat::Kind::kJsonObject:
      return CompiledGrammar::compile(compile_json_object("response_format", whitespace(format)));
    case ResponseFormat::Kind::kJsonSchema: {
      JsonSchemaOptions options;
      options.whitespace = whitespace(format);
      options.unenforced = unenforced;
      return CompiledGrammar::compile(compile_json_schema(format.text, "response_format.json_schema", options));
    }
    case ResponseFormat::Kind::kRegex: {
      GrammarBuilder b("response_format.regex");
      Sequence body = compile_regex(b, format.text, Spelling::kUtf8, RegexAnchoring::kFullMatch, "response_format.regex");
      return CompiledGrammar::compile(b.finish(b.rule("root", {body})));
    }
    case ResponseFormat::Kind::kGrammar:
      return CompiledGrammar::compile(compile_gbnf(format.text, "response_format.grammar"));
    case ResponseFormat::Kind::kToolCalls:
      return CompiledGrammar::compile(compile_tool_calls(format.text));
  }
  return nullptr;
}

}  // namespace ogai::grammar

namespace ogai {

void check_response_format(const ResponseFormat& format) { grammar::compile_response_format(format); }

std::vector<UnenforcedKeyword> check_response_format_annotations(const ResponseFormat& format) {
  std::vector<UnenforcedKeyword> all, out;
  grammar::compile_response_format(format, &all);
  for (auto& u : all) {  // a subschema compiled twice (merged, or a $ref target) reports once
    bool seen = false;
    for (const auto& o : out) seen = seen || (o.pointer == u.pointer && o.value == u.value);
    if (!seen) out.push_back(std::move(u));
  }
  return out;
}

}  // namespace ogai
