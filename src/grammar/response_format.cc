#include "grammar/response_format.h"

#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/regex.h"
#include "grammar/tool_call_grammar.h"

namespace ogai::grammar {

std::shared_ptr<const CompiledGrammar> compile_response_format(const ResponseFormat& format) {
  switch (format.kind) {
    case ResponseFormat::Kind::kJsonObject:
      return CompiledGrammar::compile(compile_json_object("response_format"));
    case ResponseFormat::Kind::kJsonSchema:
      return CompiledGrammar::compile(compile_json_schema(format.text, "response_format.json_schema"));
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

}  // namespace ogai
