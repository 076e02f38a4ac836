// The grammar budget of the request parse (json_limits.h GrammarPath, issue 37): a schema, regex or
// grammar over --max-grammar-bytes is refused while the body is read, before the rest of it is
// parsed, translated or dumped; what the exact check (the dumped text) accepts is never refused.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "serve/anthropic/messages_request.h"
#include "serve/common/api_error.h"
#include "serve/common/api_request.h"
#include "serve/common/json_limits.h"
#include "serve/responses/responses_api.h"

namespace ogai::serve {
namespace {

// An object schema with `n` string properties: about 30 bytes a property.
std::string wide_schema(int n) {
  std::string s = R"({"type":"object","properties":{)";
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::string("\"p") + std::to_string(i) + R"(":{"type":"string"})";
  return s + "}}";
}

JsonLimits grammar_limit(std::size_t bytes) {
  JsonLimits l;
  l.max_grammar_bytes = bytes;
  return l;
}

template <typename F>
ApiError error_of(F parse) {
  try {
    parse();
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted";
  return {};
}

// Each body holds a 10,000-property schema (~300 KB) at its surface's grammar path and then breaks
// off: no closing brackets and trailing garbage. The refusal is the grammar budget's, not the
// syntax error at the end, so it came before the parse reached the end of the body.
TEST(GrammarBudget, RefusesAnOversizedSchemaBeforeTheRestOfTheBodyIsRead) {
  const std::string schema = wide_schema(10'000);
  const JsonLimits limits = grammar_limit(100'000);
  const std::string broken = R"(, "oops" ][ )";
  struct Case {
    const char* surface;
    std::string body;
    std::function<void(const std::string&)> parse;
    const char* param;
  };
  const Case cases[] = {
      {"chat tools", R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function",)"
                     R"("function":{"name":"f","parameters":)" + schema + broken,
       [&](const std::string& b) { parse_chat_request(b, limits); }, "tools"},
      {"chat response_format", R"({"model":"m","response_format":{"type":"json_schema","json_schema":{"name":"x",)"
                               R"("schema":)" + schema + broken,
       [&](const std::string& b) { parse_chat_request(b, limits); }, "response_format"},
      {"completions regex", R"({"model":"m","prompt":"x","response_format":{"type":"regex","regex":")" +
                                std::string(200'000, 'a') + "\"" + broken,
       [&](const std::string& b) { parse_completion_request(b, limits); }, "response_format"},
      {"responses tools", R"({"model":"m","input":"hi","tools":[{"type":"function","name":"f","parameters":)" +
                              schema + broken,
       [&](const std::string& b) { parse_responses_request(b, limits); }, "tools"},
      {"responses text.format", R"({"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"x",)"
                                R"("schema":)" + schema + broken,
       [&](const std::string& b) { parse_responses_request(b, limits); }, "text.format"},
      {"messages tools", R"({"model":"m","max_tokens":4,"messages":[{"role":"user","content":"hi"}],)"
                         R"("tools":[{"name":"f","input_schema":)" + schema + broken,
       [&](const std::string& b) { parse_messages_request(b, MessagesRoute::kCreate, limits); }, "tools"},
      {"count_tokens tools", R"({"model":"m","messages":[{"role":"user","content":"hi"}],)"
                             R"("tools":[{"name":"f","input_schema":)" + schema + broken,
       [&](const std::string& b) { parse_messages_request(b, MessagesRoute::kCountTokens, limits); }, "tools"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.surface);
    const ApiError e = error_of([&] { c.parse(c.body); });
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.code, "grammar_too_large");
    EXPECT_EQ(e.param, c.param);
    EXPECT_NE(e.message.find("--max-grammar-bytes"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("100000"), std::string::npos) << e.message;
  }
}

// The count is a lower bound of the dumped text the exact check measures: a limit equal to the
// dumped size accepts (numbers, escapes, non-ASCII, nesting, booleans and nulls included), and the
// schema's share of the tools' sum is refused once the limit is well under it.
TEST(GrammarBudget, NeverRefusesWhatTheDumpedTextFits) {
  const std::string schema =
      R"({"type" : "object", "properties": {"a\"b\\c\u00e9\n": {"type": "number", "minimum": 1e2, "maximum": 12345},)"
      R"( "ok": {"type": "boolean", "default": false}, "n": {"type": "null", "examples": [null, true, 0.5, -3]},)"
      R"( "list": {"type": "array", "items": {"enum": ["x", "\u2603", "\/"]}}}, "required": ["ok"]})";
  const std::string body = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function",)"
                           R"("function":{"name":"lookup","parameters":)" + schema + "}}]}";
  const ApiRequest parsed = parse_chat_request(body);
  ASSERT_EQ(parsed.chat.tools.size(), 1u);
  const std::size_t exact = parsed.chat.tools[0].parameters.size() + parsed.chat.tools[0].name.size();
  EXPECT_NO_THROW(parse_chat_request(body, grammar_limit(exact)));
  const ApiError e = error_of([&] { parse_chat_request(body, grammar_limit(exact / 2)); });
  EXPECT_EQ(e.code, "grammar_too_large");

  // A schema of keys, strings and objects written compactly counts exactly its dumped size: a
  // byte over it is refused in the parse.
  const std::string wide = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function",)"
                           R"("function":{"name":"w","parameters":)" + wide_schema(1000) + "}}]}";
  const ApiRequest wide_parsed = parse_chat_request(wide);
  const Tool& w = wide_parsed.chat.tools.at(0);
  const std::size_t wide_exact = w.parameters.size() + w.name.size();
  EXPECT_NO_THROW(parse_chat_request(wide, grammar_limit(wide_exact)));
  EXPECT_EQ(error_of([&] { parse_chat_request(wide, grammar_limit(wide_exact - 1)); }).code, "grammar_too_large");

  const std::string regex = R"({"model":"m","prompt":"x","response_format":{"type":"regex","regex":"[a-z]{3}\\d+"}})";
  const std::size_t regex_bytes = parse_completion_request(regex).options.response_format->text.size();
  EXPECT_NO_THROW(parse_completion_request(regex, grammar_limit(regex_bytes)));
  EXPECT_EQ(error_of([&] { parse_completion_request(regex, grammar_limit(regex_bytes - 1)); }).code,
            "grammar_too_large");
}

// Only the grammar paths count: a long description or message, or a schema at a path the surface
// does not read as one, passes the parse; the tools' schemas are summed.
TEST(GrammarBudget, CountsOnlyTheSurfacesGrammarPathsAndSumsTheTools) {
  const JsonLimits limits = grammar_limit(10'000);
  const std::string big(50'000, 'd');
  EXPECT_NO_THROW(parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":")" + big +
                                         R"("}],"tools":[{"type":"function","function":{"name":"f","description":")" +
                                         big + R"(","parameters":{"type":"object"}}}]})",
                                     limits));
  // A schema-shaped value outside the grammar paths is not counted.
  EXPECT_NO_THROW(parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":)" +
                                         wide_schema(1'000) + "}",
                                     limits));
  const std::string tool = R"({"type":"function","function":{"name":"f","parameters":)" + wide_schema(200) + "}}";
  ASSERT_LT(tool.size(), 10'000u);
  const std::string three = R"({"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[)" + tool + "," +
                            tool + "," + tool + "]}";
  EXPECT_NO_THROW(parse_chat_request(three, grammar_limit(30'000)));
  EXPECT_EQ(error_of([&] { parse_chat_request(three, limits); }).param, "tools");
  // Without a limit (the library's default) nothing is counted.
  EXPECT_NO_THROW(parse_chat_request(three));
}

}  // namespace
}  // namespace ogai::serve
