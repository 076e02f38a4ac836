// The pushdown matcher on GBNF and regex grammars: full matches, prefixes, rejections, and the
// cache compaction keeping the language.
#include <gtest/gtest.h>

#include <set>

#include "grammar/gbnf.h"
#include "grammar/regex.h"
#include "grammar_test_util.h"

namespace ogai::grammar {
namespace {

std::shared_ptr<const CompiledGrammar> gbnf(std::string_view text) {
  return CompiledGrammar::compile(compile_gbnf(text, "test.gbnf"));
}

std::shared_ptr<const CompiledGrammar> regex(std::string_view pattern) {
  GrammarBuilder b("test.regex");
  Sequence body = compile_regex(b, pattern, Spelling::kUtf8, RegexAnchoring::kFullMatch, "test.regex");
  return CompiledGrammar::compile(b.finish(b.rule("root", {body})));
}

TEST(Gbnf, LiteralsAlternativesAndRepetition) {
  auto g = gbnf(R"(root ::= "a" item* "z"
item ::= "b" | "cd"  # a comment
)");
  EXPECT_TRUE(full_match(g, "az"));
  EXPECT_TRUE(full_match(g, "abcdbz"));
  EXPECT_FALSE(full_match(g, "abc"));
  EXPECT_TRUE(viable_prefix(g, "abc"));
  EXPECT_FALSE(viable_prefix(g, "ax"));
  EXPECT_FALSE(full_match(g, "azz"));
}

TEST(Gbnf, ClassesRangesNegationAndEscapes) {
  auto g = gbnf(R"(root ::= [a-c0-9]+ [^\n"] "\x41\u00e9\n")");
  EXPECT_TRUE(full_match(g, "a1c!A\xC3\xA9\n"));
  EXPECT_TRUE(full_match(g,
                         "b\xE2\x82\xAC"
                         "A\xC3\xA9\n"));  // [^...] takes a 3-byte character
  EXPECT_FALSE(full_match(g, "d!A\xC3\xA9\n"));
  EXPECT_FALSE(full_match(g, "a\"A\xC3\xA9\n"));
}

TEST(Gbnf, CountedRepetitionAndNestedGroups) {
  auto g = gbnf(R"g(root ::= ("ab" | [x-y]{2}){1,3} "!"?)g");
  EXPECT_TRUE(full_match(g, "ab"));
  EXPECT_TRUE(full_match(g, "xyabyy!"));
  EXPECT_FALSE(full_match(g, "abababab"));
  EXPECT_FALSE(full_match(g, "x"));
  EXPECT_FALSE(full_match(g, ""));
}

TEST(Gbnf, RecursionBalancedParentheses) {
  auto g = gbnf(R"g(root ::= expr
expr ::= term ("+" term)*
term ::= [0-9]+ | "(" expr ")")g");
  EXPECT_TRUE(full_match(g, "(1+(2+3))+4"));
  EXPECT_FALSE(full_match(g, "(1+2"));
  EXPECT_TRUE(viable_prefix(g, "((((((((((1"));
  EXPECT_FALSE(full_match(g, "1+"));
}

TEST(Gbnf, MultiLineGroupsAndEmptyAlternative) {
  auto g = gbnf("root ::= (\n  \"a\" |\n  \"b\"\n) opt\nopt ::= \"c\" | \n");
  EXPECT_TRUE(full_match(g, "a"));
  EXPECT_TRUE(full_match(g, "bc"));
  EXPECT_FALSE(full_match(g, "cc"));
}

TEST(Regex, FullMatchSyntax) {
  auto g = regex(R"(^(?:[A-Z][a-z]{1,3}|\d{3})-(x|yz)+\.?$)");
  EXPECT_TRUE(full_match(g, "Abc-x"));
  EXPECT_TRUE(full_match(g, "123-yzx."));
  EXPECT_FALSE(full_match(g, "Abcde-x"));
  EXPECT_FALSE(full_match(g, "12-x"));
  EXPECT_FALSE(full_match(g, "Ab-"));
}

TEST(Regex, ClassesEscapesAndDot) {
  auto g = regex(R"([^a-c\s]\w\S.\u00e9[\-\]])");
  EXPECT_TRUE(full_match(g, "d_!z\xC3\xA9-"));
  EXPECT_TRUE(full_match(g, "Z0\xE2\x82\xAC\xE2\x82\xAC\xC3\xA9]"));
  EXPECT_FALSE(full_match(g, "a_!z\xC3\xA9-"));
  EXPECT_FALSE(full_match(g, "d_!\n\xC3\xA9-"));  // '.' excludes newlines
  EXPECT_FALSE(full_match(g, "d !z\xC3\xA9-"));
}

TEST(Regex, SearchSemanticsInJsonStrings) {
  GrammarBuilder b("t");
  Sequence body = b.literal("\"");
  GrammarBuilder::append(body, compile_regex(b, "ab+", Spelling::kJsonString, RegexAnchoring::kSearch, "t"));
  GrammarBuilder::append(body, b.literal("\""));
  auto g = CompiledGrammar::compile(b.finish(b.rule("root", {body})));
  EXPECT_TRUE(full_match(g, R"("xxabbby")"));
  EXPECT_TRUE(full_match(g, R"("a\"ab\n")"));  // escaped characters around the match
  EXPECT_FALSE(full_match(g, R"("a"b")"));     // a raw quote cannot be content
  EXPECT_FALSE(full_match(g, R"("ba")"));
}

TEST(Matcher, CompactionKeepsTheLanguage) {
  // A counter grammar makes a new DFA state per character; compaction must not lose the place.
  auto g = gbnf(R"(root ::= "<" [a-z]{0,40000} ">")");
  Matcher m(g);
  Matcher::State s = m.initial();
  s = m.step(s, '<');
  for (int i = 0; i < 30000; ++i) {
    s = m.step(s, static_cast<std::uint8_t>('a' + i % 26));
    ASSERT_NE(s, Matcher::kDead);
    if (m.needs_compaction()) s = m.compact(s);
  }
  EXPECT_LE(m.state_count(), Matcher::kMaxStates + 2);
  EXPECT_FALSE(m.accepting(s));
  s = m.step(s, '>');
  EXPECT_TRUE(m.accepting(s));
  EXPECT_EQ(m.step(s, '>'), Matcher::kDead);
}

// uniform(): whether every byte of a set leads to one state, read off the stacks; checked
// against stepping every byte of the set.
TEST(Matcher, UniformAgreesWithSteppingEveryByte) {
  ByteSet letters = ByteSet::range('a', 'z');
  letters.add_range('A', 'Z');
  struct Case {
    const char* pattern;
    const char* prefix;
    Matcher::Uniform want;
  };
  for (const Case& c :
       {Case{"[a-zA-Z]*!", "ab", Matcher::Uniform::kSame},
        Case{"([a-m]|[n-zA-Z])+", "q", Matcher::Uniform::kSame},  // two stacks, one continuation
        Case{"[0-9]+", "1", Matcher::Uniform::kNone}, Case{"[a-m]x|[n-zA-Z]y", "", Matcher::Uniform::kMaybeDiffer},
        Case{"[a-y]+", "a", Matcher::Uniform::kMaybeDiffer}}) {
    auto g = regex(c.pattern);
    Matcher m(g);
    const Matcher::State s = m.walk(m.initial(), c.prefix);
    ASSERT_NE(s, Matcher::kDead) << c.pattern;
    EXPECT_EQ(m.uniform(s, letters), c.want) << c.pattern;
    std::set<Matcher::State> next;
    for (int b = 0; b < 256; ++b)
      if (letters.has(static_cast<std::uint8_t>(b))) next.insert(m.step(s, static_cast<std::uint8_t>(b)));
    switch (c.want) {
      case Matcher::Uniform::kSame:
        EXPECT_TRUE(next.size() == 1 && *next.begin() != Matcher::kDead) << c.pattern;
        break;
      case Matcher::Uniform::kNone:
        EXPECT_EQ(next, std::set<Matcher::State>{Matcher::kDead}) << c.pattern;
        break;
      case Matcher::Uniform::kMaybeDiffer:
        EXPECT_GT(next.size(), 1u) << c.pattern;
        break;
    }
  }
}

}  // namespace
}  // namespace ogai::grammar
