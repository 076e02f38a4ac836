// Bad input fails closed with an ogai::Error that names the keyword / construct and where it is,
// and pathological inputs (cycles, huge enums, catastrophic regexes) end in an error or in
// bounded work.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "base/error.h"
#include "grammar/gbnf.h"
#include "grammar/json_rules.h"
#include "grammar/json_schema.h"
#include "grammar/regex.h"
#include "grammar/response_format.h"
#include "grammar_test_util.h"

namespace ogai::grammar {
namespace {

// The error compiling `schema` raises: its code and "where: message".
std::pair<ErrorCode, std::string> schema_error(std::string_view schema) {
  try {
    compile_json_schema(schema, "response_format.json_schema");
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  ADD_FAILURE() << "no error for " << schema;
  return {ErrorCode::kInternal, ""};
}

std::string gbnf_error(std::string_view text) {
  try {
    compile_gbnf(text, "g");
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << text;
  return "";
}

std::string regex_error(std::string_view pattern) {
  try {
    GrammarBuilder b("r");
    compile_regex(b, pattern, Spelling::kUtf8, RegexAnchoring::kFullMatch, "r");
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for " << pattern;
  return "";
}

TEST(SchemaErrors, UnsupportedKeywordsAreNamedWithTheirPointer) {
  struct Case {
    const char* schema;
    const char* keyword;
    const char* pointer;
  };
  const Case cases[] = {
      {R"j({"type":"object","properties":{"a":{"not":{"properties":{"b":{}}}}}})j", "'not'", "#/properties/a/not"},
      {R"j({"type":"number","multipleOf":1e-20})j", "'multipleOf' 1e-20", "#/multipleOf"},
      {R"j({"type":"object","properties":{"a":{"$recursiveRef":"#"}}})j", "'$recursiveRef'", "#/properties/a/$recursiveRef"},
      {R"j({"items":{"$dynamicRef":"#meta"}})j", "'$dynamicRef'", "#/items/$dynamicRef"},
      {R"j({"type":"object","minProperties":2})j", "'minProperties' above 1", "#/minProperties"},
      {R"j({"type":"object","properties":{"a":{}},"minProperties":2})j", "'minProperties' 2", "#/minProperties"},
      {R"j({"type":"array","uniqueItems":true,"minItems":2})j", "'uniqueItems'", "#/uniqueItems"},
      {R"j({"type":"array","items":{"type":"string","pattern":"(?=a)"}})j", "lookaround", "#/items/pattern"},
      {R"j({"allOf":[{"pattern":"a"},{"pattern":"b"}]})j", "two different 'pattern'", "#/allOf/1/pattern"},
      {R"j({"type":"string","pattern":"a","maxLength":3})j", "combining", "#'"},
      {R"j({"$ref":"http://example.com/s.json"})j", "remote '$ref'", "#/$ref"},
      {R"j({"properties":{"a":{"$ref":"other.json#/x"}}})j", "remote '$ref' 'other.json#/x'", "#/properties/a/$ref"},
      {R"j({"type":"number","exclusiveMinimum":0.1,"exclusiveMaximum":0.1000001})j", "non-integer bounds", "#'"},
      {R"j({"oneOf":[{"type":"string"},{"type":"string","maxLength":2}]})j", "'oneOf'", "#/oneOf"},
      {R"j({"type":"string","not":{"enum":["a"]}})j", "'not' excluding the value \"a\"", "#/not"},
  };
  for (const Case& c : cases) {
    auto [code, what] = schema_error(c.schema);
    EXPECT_EQ(code, ErrorCode::kUnsupported) << c.schema << " -> " << what;
    EXPECT_NE(what.find(c.keyword), std::string::npos) << what;
    EXPECT_NE(what.find(c.pointer), std::string::npos) << what;
    EXPECT_NE(what.find("response_format.json_schema"), std::string::npos) << what;
  }
}

TEST(SchemaErrors, MalformedSchemas) {
  EXPECT_NE(schema_error("{\"type\":").second.find("not valid JSON"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"type":"strin"})j").second.find("unknown type 'strin'"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"type":"array","minItems":3,"maxItems":2})j").second.find("allows no value"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"properties":{"a":5}})j").second.find("#/properties/a"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"$ref":"#/$defs/missing"})j").second.find("names nothing"), std::string::npos);
  EXPECT_NE(schema_error("false").second.find("allows no value"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"type":"integer","minimum":5,"maximum":4})j").second.find("allows no value"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"allOf":[{"type":"string"},{"type":"integer"}]})j").second.find("allows no value"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"enum":[]})j").second.find("non-empty"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"type":"object","properties":{},"required":["x"],"additionalProperties":false})j")
                .second.find("allows no value"),
            std::string::npos);
}

TEST(SchemaErrors, RefCyclesWithoutProgressAreErrors) {
  auto [code, what] = schema_error(R"j({"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}})j");
  EXPECT_EQ(code, ErrorCode::kInvalidArgument);
  EXPECT_NE(what.find("#/$defs/"), std::string::npos) << what;
  auto [code2, what2] = schema_error(R"j({"anyOf":[{"$ref":"#"},{"type":"null"}]})j");
  EXPECT_NE(what2.find("left-recursive"), std::string::npos) << what2;
  // Recursion through structure is fine.
  EXPECT_NO_THROW(compile_json_schema(R"j({"type":"array","items":{"$ref":"#"}})j", "s"));
}

TEST(SchemaErrors, HugeEnumsAndDeepNestingAreBounded) {
  std::string big = R"j({"enum":[")j" + std::string(kMaxLiteralBytes + 10, 'x') + R"j("]})j";
  EXPECT_NE(schema_error(big).second.find("compile-time bound"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"j({"type":"array","items":)j";
  deep += "true";
  for (int i = 0; i < 200; ++i) deep += "}";
  EXPECT_NE(schema_error(deep).second.find("nests deeper"), std::string::npos);
  EXPECT_NE(schema_error(R"j({"type":"array","minItems":100000000})j").second.find("compile-time bound"), std::string::npos);
}

TEST(RegexErrors, UnsupportedAndMalformedConstructs) {
  EXPECT_NE(regex_error("(a)\\1").find("backreference"), std::string::npos);
  EXPECT_NE(regex_error("a(?!b)j").find("lookaround"), std::string::npos);
  EXPECT_NE(regex_error("\\bword").find("word boundary"), std::string::npos);
  EXPECT_NE(regex_error("\\p{L}").find("Unicode property"), std::string::npos);
  EXPECT_NE(regex_error("a|^b").find("'^'"), std::string::npos);
  EXPECT_NE(regex_error("(?i)a").find("inline flags"), std::string::npos);
  EXPECT_NE(regex_error("(ab").find("missing ')'"), std::string::npos);
  EXPECT_NE(regex_error("[z-a]").find("out of order"), std::string::npos);
  EXPECT_NE(regex_error("*a").find("nothing to repeat"), std::string::npos);
  EXPECT_NE(regex_error("a{3,2}").find("max < min"), std::string::npos);
  std::string long_pattern;
  for (int i = 0; i < 25; ++i) long_pattern += "a{100000}";
  EXPECT_NE(regex_error(long_pattern).find("compile-time bound"), std::string::npos);
  EXPECT_NE(regex_error("a{100001}").find("above"), std::string::npos);
}

TEST(RegexErrors, CatastrophicPatternsRunInBoundedTime) {
  // Exponential for a backtracking engine; here a few parse stacks per byte.
  for (const char* p : {"(a+)+b", "(a|a)*c", "(a|aa)+$", "(.*a){12}", "(\\w+\\s?)+!"}) {
    GrammarBuilder b("r");
    Sequence body = compile_regex(b, p, Spelling::kUtf8, RegexAnchoring::kFullMatch, "r");
    auto g = CompiledGrammar::compile(b.finish(b.rule("root", {body})));
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(full_match(g, std::string(5000, 'a') + "x")) << p;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 2.0) << p;
  }
}

TEST(RegexErrors, AmbiguityBeyondTheStackBoundFailsClosed) {
  GrammarBuilder b("r");
  Sequence body = compile_regex(b, "(a{0,100}){0,100}", Spelling::kUtf8, RegexAnchoring::kFullMatch, "r");
  auto g = CompiledGrammar::compile(b.finish(b.rule("root", {body})));
  Matcher m(g);
  Matcher::State s = m.initial();
  int steps = 0;
  for (; steps < 300 && s != Matcher::kDead; ++steps) s = m.step(s, 'a');
  EXPECT_EQ(s, Matcher::kDead);  // cut: the text is never allowed, not matched at unbounded cost
  EXPECT_TRUE(m.pruned());
  EXPECT_LT(steps, 300);
}

TEST(GbnfErrors, LeftRecursionNoTerminalAndSyntax) {
  EXPECT_NE(gbnf_error("root ::= root \"a\" | \"b\"").find("left-recursive"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= x | \"z\"\nx ::= e root \"y\"\ne ::= \"\" | \"q\"").find("left-recursive"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= a\na ::= \"x\" a").find("no terminal"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= [^\\x00-\\U0010FFFF]").find("matches nothing"), std::string::npos);
  EXPECT_NE(gbnf_error("start ::= \"a\"").find("no 'root'"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= value").find("'value' is used but never defined"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= \"a\"\nroot ::= \"b\"").find("defined twice"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= \"a").find("unterminated"), std::string::npos);
  EXPECT_NE(gbnf_error("root = \"a\"").find("'::='"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= <think>").find("token references"), std::string::npos);
  EXPECT_NE(gbnf_error("root ::= \"a\"\n  | \"b\"").find("g:2:"), std::string::npos);  // llama.cpp: a newline ends a rule
}

TEST(ResponseFormatErrors, LocatedAtTheFormat) {
  ResponseFormat f;
  f.kind = ResponseFormat::Kind::kRegex;
  f.text = "(";
  try {
    check_response_format(f);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "response_format.regex");
  }
  f.kind = ResponseFormat::Kind::kJsonObject;
  EXPECT_NO_THROW(check_response_format(f));
}

}  // namespace
}  // namespace ogai::grammar

namespace ogai::grammar {
namespace {

// Mutations of valid inputs: each compiles or fails with ogai::Error (never another exception or
// a crash), and what compiles can start matching.
template <typename Compile>
void mutate_and_compile(const std::string& seed_text, const std::string& alphabet, Compile compile) {
  std::mt19937 rng(11);
  for (int i = 0; i < 1500; ++i) {
    std::string t = seed_text;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n && !t.empty(); ++k) {
      const std::size_t at = rng() % t.size();
      switch (rng() % 3) {
        case 0: t.erase(at, 1); break;
        case 1: t.insert(t.begin() + static_cast<std::ptrdiff_t>(at), alphabet[rng() % alphabet.size()]); break;
        default: t[at] = alphabet[rng() % alphabet.size()]; break;
      }
    }
    try {
      auto g = CompiledGrammar::compile(compile(t));
      Matcher m(g);
      Matcher::State s = m.initial();
      for (char c : std::string("{\"a\": [1, \"x\"]}")) s = s == Matcher::kDead ? s : m.step(s, static_cast<std::uint8_t>(c));
    } catch (const Error&) {
    }
  }
}

TEST(RobustInput, MutatedSchemasRegexesAndGrammarsFailCleanly) {
  mutate_and_compile(R"j({"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/$defs/x"},"maxItems":3},
    "b":{"enum":["x",1,null]},"c":{"type":"string","pattern":"^a[b-d]{2}$"},"d":{"type":"integer","minimum":-3}},
    "required":["a"],"$defs":{"x":{"anyOf":[{"type":"number","maximum":5},{"const":true}]}}})j",
                     "{}[]\":,0123456789-.#/$abcdefnrtux\\ ", [](const std::string& t) {
                       return compile_json_schema(t, "s");
                     });
  mutate_and_compile(R"j(^(a|b[c-e]+)*\d{2,3}(?:x\.y)?[^\s"]$)j", "()[]{}|*+?.^$\\-,0123456789abdswDSWux:<=!",
                     [](const std::string& t) {
                       GrammarBuilder b("r");
                       Sequence body = compile_regex(b, t, Spelling::kUtf8, RegexAnchoring::kFullMatch, "r");
                       return b.finish(b.rule("root", {body}));
                     });
  mutate_and_compile("root ::= item (\",\" item){0,3}\nitem ::= [a-z]+ | \"(\" root \")\" | \"\\x41\"\n",
                     "()[]{}|*+?.^\"\\:=-,0123456789abnrx# \n<!", [](const std::string& t) {
                       return compile_gbnf(t, "g");
                     });
}

}  // namespace
}  // namespace ogai::grammar
