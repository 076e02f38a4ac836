// Error messages (syntax errors with line:column and the offending token, raise_exception,
// undefined values, type errors) and the limits that keep hostile templates from hanging or
// exhausting memory and stack.
#include <gtest/gtest.h>

#include "chat/template.h"
#include "ogai/error.h"

namespace ogai::chat {
namespace {

// The ogai::Error raised by parsing (and rendering) `source`.
Error error_of(const std::string& source, const Json& vars = Json::object(), const RenderOptions& options = {}) {
  try {
    Template::parse(source, "tpl").render(vars, options);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for: " << source;
  return Error(ErrorCode::kInternal, "", "");
}

struct SyntaxCase {
  const char* source;
  const char* where;
  const char* message;
};

class SyntaxErrors : public testing::TestWithParam<SyntaxCase> {};

TEST_P(SyntaxErrors, NameLineColumnAndToken) {
  Error e = error_of(GetParam().source);
  EXPECT_EQ(e.code(), ErrorCode::kParse);
  EXPECT_EQ(e.where(), GetParam().where);
  EXPECT_EQ(e.message(), std::string("template syntax error: ") + GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Jinja, SyntaxErrors, testing::Values(
    SyntaxCase{"{{ 1 + }}", "tpl:1:8", "expected an expression, got '}}'"},
    SyntaxCase{"line1\n  {{ x y }}", "tpl:2:8", "expected '}}' to close '{{', got 'y'"},
    SyntaxCase{"{% if x %}\nnever closed", "tpl:2:13",
               "unexpected end of template: '{% if %}' at line 1:1 is not closed with '{% endif %}'"},
    SyntaxCase{"a\n{% endfor %}", "tpl:2:4", "unexpected '{% endfor %}' with no open block it could close"},
    SyntaxCase{"{% include 'x' %}", "tpl:1:4", "unknown or unsupported statement 'include'"},
    SyntaxCase{"{{ 'abc }}", "tpl:1:4", "string literal is not closed"},
    SyntaxCase{"{# never closed", "tpl:1:1", "comment is not closed with '#}'"},
    SyntaxCase{"{{ x.'a' }}", "tpl:1:6", "expected a name or an integer after '.', got string 'a'"},
    SyntaxCase{"{{ x | 3 }}", "tpl:1:8", "expected a filter name after '|', got number 3"},
    SyntaxCase{"{{ a ? b }}", "tpl:1:6", "unexpected character '?'"},
    SyntaxCase{"{% for 1 in x %}{% endfor %}", "tpl:1:8", "expected a name or names for the loop variable"},
    SyntaxCase{"{% macro m(a=1, b) %}{% endmacro %}", "tpl:1:17", "a parameter without a default cannot follow one with a default"},
    SyntaxCase{"{{ f(a=1, 2) }}", "tpl:1:11", "positional arguments must come before keyword arguments"},
    SyntaxCase{"{% raw %}x", "tpl:1:1", "'raw' block is not closed with '{% endraw %}'"},
    SyntaxCase{"{{ x[] }}", "tpl:1:6", "expected an index or a slice between '[' and ']'"},
    SyntaxCase{"{{ 'a' ", "tpl:1:8", "unexpected end of template inside a tag"}));

TEST(RenderErrors, RaiseExceptionSurfacesTheTemplatesMessage) {
  Error e = error_of("line one\n{% if true %}{{ raise_exception('Roles must alternate') }}{% endif %}");
  EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.message(), "Roles must alternate");
  EXPECT_EQ(e.where(), "tpl:2:17");
}

TEST(RenderErrors, ReadingFromUndefinedNamesIt) {
  EXPECT_EQ(error_of("{{ foo.bar }}").message(), "'foo' is undefined (reading 'bar' of it)");
  EXPECT_EQ(error_of("{{ m.a.b }}", Json::parse(R"({"m": {}})")).message(), "'a' is undefined (reading 'b' of it)");
  EXPECT_EQ(error_of("{{ m[3].role }}", Json::parse(R"({"m": []})")).message(),
            "item 3 is undefined (reading 'role' of it)");
  EXPECT_EQ(error_of("{{ nope() }}").message(), "'nope' is undefined and cannot be called");
}

TEST(RenderErrors, UndefinedIsFalsyAndPrintsNothing) {
  EXPECT_EQ(Template::parse("[{{ u }}]{% if u %}x{% endif %}{{ m.missing }}", "t").render(Json::parse(R"({"m": {}})")), "[]");
}

TEST(RenderErrors, TypeErrorsSayWhatWasExpected) {
  EXPECT_EQ(error_of("{{ 1 + none }}").message(), "cannot apply '+' to none");
  EXPECT_EQ(error_of("{{ u - 1 }}").message(), "cannot apply '-' to an undefined value ('u' is undefined)");
  EXPECT_EQ(error_of("{{ 1 + true }}").message(), "cannot apply '+' to an integer and a boolean");
  EXPECT_EQ(error_of("{% for x in 5 %}{% endfor %}").message(), "cannot loop over an integer");
  EXPECT_EQ(error_of("{{ 'a'|nope }}").message(), "filter 'nope' cannot be applied to a string");
  EXPECT_EQ(error_of("{{ 1 is nope }}").message(), "unknown test 'nope'");
  EXPECT_EQ(error_of("{% set d = {} %}{% set d.x = 1 %}").message(),
            "cannot set attribute 'x' on a dict: only namespace() objects can be assigned to");
  EXPECT_EQ(error_of("{% set a, b = [1] %}").message(), "too few values to unpack in 'set': expected 2, got 1");
  EXPECT_EQ(error_of("{% macro m(a) %}{% endmacro %}{{ m(1, 2) }}").message(), "macro 'm' takes at most 1 argument(s), got 2");
  EXPECT_EQ(error_of("{% macro m() %}{% endmacro %}{{ m(k=1) }}").message(), "macro 'm' takes no keyword argument 'k'");
  EXPECT_EQ(error_of("{{ 3.5 is odd }}").message(), "test 'odd' needs an integer, got a float");
  EXPECT_EQ(error_of("{{ range(1, 2, 0) }}").message(), "range() step must not be zero");
  EXPECT_EQ(error_of("{% break %}").message(), "'break' outside a loop");
  EXPECT_EQ(error_of("{{ range }}").message(), "cannot print a function; call it");
}

TEST(Limits, MacroRecursionIsBounded) {
  Error e = error_of("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}");
  EXPECT_EQ(e.message(), "template nesting or macro recursion deeper than 200 levels");
}

TEST(Limits, LoopIterationsAreBounded) {
  RenderOptions o;
  o.limits.max_loop_iterations = 1000;
  EXPECT_EQ(error_of("{% for i in range(10) %}{% for j in range(200) %}{% endfor %}{% endfor %}", Json::object(), o).message(),
            "more than 1000 loop iterations and macro calls in one render");
  EXPECT_EQ(error_of("{{ range(1000000000000) }}").message(), "more than 10000000 loop iterations and macro calls in one render");
}

TEST(Limits, OutputAndStringSizesAreBounded) {
  RenderOptions o;
  o.limits.max_output_bytes = 1000;
  EXPECT_EQ(error_of("{% for i in range(100) %}0123456789ABCDEF{% endfor %}", Json::object(), o).message(),
            "output exceeds the limit of 1000 bytes");
  Error doubling = error_of("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}", Json::object(), o);
  EXPECT_EQ(doubling.message(), "a string of 1024 bytes exceeds the output limit of 1000 bytes");
}

TEST(Limits, MemoryIsBounded) {
  RenderOptions o;
  o.limits.max_memory_bytes = 1 << 20;
  Error e = error_of("{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = ns.l + [i] %}{% endfor %}", Json::object(), o);
  EXPECT_EQ(e.message(), "rendering needs more than the memory limit of 1048576 bytes");
}

TEST(Limits, DeepNestingFailsAtParseTime) {
  std::string source = "{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}";
  EXPECT_EQ(error_of(source).message(), "template syntax error: template nested more than 200 levels deep");
  std::string ifs;
  for (int i = 0; i < 300; ++i) ifs += "{% if true %}";
  EXPECT_EQ(error_of(ifs).code(), ErrorCode::kParse);
}

TEST(Limits, LongOperatorChainsCannotOverflowTheStack) {
  std::string sum = "{{ 1";
  for (int i = 0; i < 100000; ++i) sum += " + 1";
  EXPECT_EQ(error_of(sum + " }}").message(), "template syntax error: template nested more than 200 levels deep");
  std::string attrs = "{{ x";
  for (int i = 0; i < 100000; ++i) attrs += ".a";
  EXPECT_EQ(error_of(attrs + " }}").code(), ErrorCode::kParse);
  std::string sum150 = "{{ 1";
  for (int i = 0; i < 150; ++i) sum150 += " + 1";
  EXPECT_EQ(Template::parse(sum150 + " }}", "t").render(Json::object()), "151");
}

// Issue 12 finding 8: `a if c else b if c else ...` recursed once per link without counting it.
TEST(Limits, ConditionalChainsCountAgainstTheNestingBudget) {
  std::string chain = "{{ ";
  for (int i = 0; i < 300000; ++i) chain += "1 if 1 else ";
  EXPECT_EQ(error_of(chain + "0 }}").message(), "template syntax error: template nested more than 200 levels deep");
  std::string chain150 = "{{ ";
  for (int i = 0; i < 150; ++i) chain150 += "0 if 0 else ";
  EXPECT_EQ(Template::parse(chain150 + "7 }}", "t").render(Json::object()), "7");
}

// One budget for every recursive construct: levels of different kinds add up.
TEST(Limits, EveryConstructSharesOneNestingBudget) {
  auto mixed = [](int each) {
    std::string s;
    for (int i = 0; i < each; ++i) s += "{% if true %}";
    s += "{{ " + std::string(each, '(') + "[";
    for (int i = 0; i < each; ++i) s += "0 if 0 else ";
    s += "1]" + std::string(each, ')') + " }}";
    for (int i = 0; i < each; ++i) s += "{% endif %}";
    return s;
  };
  EXPECT_EQ(Template::parse(mixed(40), "t").render(Json::object()), "[1]");
  EXPECT_EQ(error_of(mixed(70)).message(), "template syntax error: template nested more than 200 levels deep");
}

TEST(Limits, BranchingMacroCallsAreBounded) {
  RenderOptions o;
  o.limits.max_loop_iterations = 100000;
  Error e = error_of("{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}",
                     Json::object(), o);
  EXPECT_EQ(e.message(), "more than 100000 loop iterations and macro calls in one render");
}

TEST(Limits, PrintingSharedValuesIsBounded) {
  RenderOptions o;
  o.limits.max_output_bytes = 1 << 20;
  const char* doubling = "{% set ns = namespace(l=[1]) %}{% for i in range(60) %}{% set ns.l = [ns.l, ns.l] %}{% endfor %}";
  for (const char* print : {"{{ ns.l }}", "{{ ns.l|tojson }}", "{{ ns.l|string }}", "{{ '' ~ ns.l }}", "{{ ns.l == 'x' }}",
                            "{{ dict(a=ns.l)|string }}", "{{ [ns.l]|join }}"}) {
    EXPECT_EQ(error_of(std::string(doubling) + print, Json::object(), o).message(),
              "text built from a value exceeds the output limit of 1048576 bytes")
        << print;
  }
}

TEST(Limits, SelfReferenceCannotRecurseForever) {
  Error e = error_of("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns|tojson }}");
  EXPECT_EQ(e.message(), "value nested more than 512 levels deep (a cycle?)");
}

}  // namespace
}  // namespace ogai::chat
