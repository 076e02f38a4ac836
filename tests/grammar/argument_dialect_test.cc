// Forced calls in a JSON-like argument dialect (grammar/tool_call_grammar.h "arguments_dialect",
// json_rules.h JsonDialect): Gemma-4's <|tool_call>call:NAME{key:VALUE,...}<tool_call|> with bare
// sorted keys, <|"|> strings taken as written, numbers / true / false / null raw. The grammar
// accepts exactly what the template writes for valid arguments and enforces the same keywords as
// the JSON path (types, enum, const, required, bounds, nesting, arrays).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "grammar/tool_call_grammar.h"
#include "grammar_test_util.h"

namespace ogai::grammar {
namespace {

using Json = nlohmann::ordered_json;

const std::string kQ = "<|\"|>";  // Gemma-4's string delimiter

std::string q(const std::string& text) { return kQ + text + kQ; }
std::string call(const std::string& name, const std::string& args) {
  return "<|tool_call>call:" + name + args + "<tool_call|>";
}

Json weather_parameters() {
  return {{"type", "object"},
          {"properties",
           {{"location", {{"type", "string"}}},
            {"unit", {{"enum", {"celsius", "fahrenheit"}}}},
            {"days", {{"type", "integer"}, {"minimum", 1}, {"maximum", 7}}},
            {"Details",
             {{"type", "object"},
              {"properties",
               {{"tags", {{"type", "array"}, {"items", {{"type", "string"}}}, {"maxItems", 3}}},
                {"ratio", {{"type", "number"}}},
                {"note", {{"type", {"string", "null"}}}},
                {"ok", {{"type", "boolean"}}}}},
              {"additionalProperties", false}}}}},
          {"required", {"location", "unit"}},
          {"additionalProperties", false}};
}

Json gemma_spec(bool parallel, Json functions) {
  return {{"begin", ""},
          {"call_template", "<|tool_call>call:{name}{arguments}<tool_call|>"},
          {"separator", ""},
          {"end", ""},
          {"max_calls", 3},
          {"parallel", parallel},
          {"arguments_dialect", {{"unquoted_keys", true}, {"string_delims", {kQ, kQ}}, {"sorted_keys", true}}},
          {"functions", std::move(functions)}};
}

Json weather_functions() {
  return {{{"name", "get_weather"}, {"parameters", weather_parameters()}, {"where", "tools[0].function.parameters"}},
          {{"name", "ping"}, {"where", "tools[1].function.parameters"}}};
}

std::shared_ptr<const CompiledGrammar> compiled(const Json& spec) {
  return CompiledGrammar::compile(compile_tool_calls(spec.dump()));
}

// One string-valued property, to test what a string may hold.
std::shared_ptr<const CompiledGrammar> string_grammar(Json string_schema) {
  Json params = {{"type", "object"}, {"properties", {{"s", std::move(string_schema)}}}, {"required", {"s"}}};
  return compiled(gemma_spec(false, Json::array({{{"name", "f"}, {"parameters", params}}})));
}

TEST(ArgumentDialect, KeysBareAndSortedStringsDelimited) {
  auto g = compiled(gemma_spec(false, weather_functions()));
  const std::string ok = call("get_weather", "{days:3,location:" + q("Paris") + ",unit:" + q("celsius") + "}");
  EXPECT_TRUE(full_match(g, ok)) << ok;
  EXPECT_TRUE(full_match(g, call("get_weather", "{location:" + q("Paris") + ",unit:" + q("fahrenheit") + "}")));
  EXPECT_TRUE(full_match(g, call("ping", "{}")));  // no parameters: the empty object
  // JSON spellings are not the dialect.
  EXPECT_FALSE(full_match(g, call("get_weather", R"({"location":"Paris","unit":"celsius"})")));
  EXPECT_FALSE(full_match(g, call("get_weather", "{location:\"Paris\",unit:" + q("celsius") + "}")));
  EXPECT_FALSE(full_match(g, call("get_weather", "{\"location\":" + q("Paris") + ",unit:" + q("celsius") + "}")));
  // Declared order (location, unit, days) is not the template's sorted order.
  EXPECT_FALSE(full_match(g, call("get_weather", "{location:" + q("Paris") + ",unit:" + q("celsius") + ",days:3}")));
  // Compact, as the template renders it.
  EXPECT_FALSE(full_match(g, call("get_weather", "{location: " + q("Paris") + ",unit:" + q("celsius") + "}")));
}

TEST(ArgumentDialect, EnforcesTheSchema) {
  auto g = compiled(gemma_spec(false, weather_functions()));
  auto args = [](const std::string& members) { return call("get_weather", "{" + members + "}"); };
  const std::string loc = "location:" + q("Oslo");
  const std::string unit = "unit:" + q("celsius");
  EXPECT_FALSE(full_match(g, args(loc + ",unit:" + q("kelvin"))));               // enum
  EXPECT_FALSE(full_match(g, args(loc)));                                        // required unit
  EXPECT_FALSE(full_match(g, args("days:9," + loc + "," + unit)));               // maximum
  EXPECT_FALSE(full_match(g, args("days:" + q("3") + "," + loc + "," + unit)));  // type
  EXPECT_FALSE(full_match(g, args(loc + "," + unit + ",zone:1")));               // additionalProperties
  EXPECT_FALSE(full_match(g, args("location:7," + unit)));                       // a number is no string
  EXPECT_FALSE(full_match(g, call("sub", "{}")));                                // unknown function
  // Nested object (keys sorted case-insensitively: Details before location), arrays, numbers,
  // null and booleans written raw.
  const std::string nested = "Details:{note:null,ok:true,ratio:-1.5e3,tags:[" + q("a") + "," + q("b") + "]},";
  EXPECT_TRUE(full_match(g, args(nested + loc + "," + unit)));
  EXPECT_TRUE(full_match(g, args("Details:{note:" + q("n") + ",ok:false,ratio:0,tags:[]}," + loc + "," + unit)));
  EXPECT_TRUE(full_match(g, args("Details:{}," + loc + "," + unit)));
  EXPECT_FALSE(full_match(g, args("Details:{tags:[" + q("a") + "," + q("b") + "," + q("c") + "," + q("d") + "]}," +
                                  loc + "," + unit)));  // maxItems
  EXPECT_FALSE(full_match(g, args("Details:{ok:None}," + loc + "," + unit)));
  EXPECT_FALSE(full_match(g, args("Details:{tags:[1]}," + loc + "," + unit)));
}

TEST(ArgumentDialect, StringsAreRawTextWithoutTheDelimiter) {
  auto g = string_grammar({{"type", "string"}});
  auto with = [](const std::string& text) { return call("f", "{s:" + q(text) + "}"); };
  for (const std::string text : {"", "a\"b", "line\nbreak\ttab", "back\\slash \\n \\u0041",
                                 "caf\xc3\xa9 \xe2\x98\x83 "
                                 "\xf0\x9f\x98\x80",
                                 "a < b", "<|", "<|\"", "x <|\"|", "{k:v}", "'single'"})
    EXPECT_TRUE(full_match(g, with(text))) << text;
  EXPECT_FALSE(full_match(g, with("a" + kQ + "b")));          // the delimiter ends the string
  EXPECT_FALSE(full_match(g, with(std::string("nul\x01"))));  // control characters other than tab / newlines
  EXPECT_FALSE(viable_prefix(g, "<|tool_call>call:f{s:" + kQ + "a" + kQ + "b"));
}

TEST(ArgumentDialect, BoundedPatternAndFormatStrings) {
  auto bounded = string_grammar({{"type", "string"}, {"minLength", 2}, {"maxLength", 3}});
  EXPECT_TRUE(full_match(bounded, call("f", "{s:" + q("\xc3\xa9\"\n") + "}")));  // three characters
  EXPECT_FALSE(full_match(bounded, call("f", "{s:" + q("abcd") + "}")));
  EXPECT_FALSE(full_match(bounded, call("f", "{s:" + q("a") + "}")));
  // A bounded string holds no '<' (the delimiter's first character): a subset of the schema's strings.
  EXPECT_FALSE(full_match(bounded, call("f", "{s:" + q("a<") + "}")));
  auto pattern = string_grammar({{"type", "string"}, {"pattern", "^[a-z]+\"$"}});
  EXPECT_TRUE(full_match(pattern, call("f", "{s:" + q("abc\"") + "}")));  // raw, not escaped
  EXPECT_FALSE(full_match(pattern, call("f", "{s:" + q("abc\\\"") + "}")));
  auto date = string_grammar({{"type", "string"}, {"format", "date"}});
  EXPECT_TRUE(full_match(date, call("f", "{s:" + q("2026-12-02") + "}")));
  EXPECT_FALSE(full_match(date, call("f", "{s:" + q("2026-13-02") + "}")));
}

TEST(ArgumentDialect, LiteralsAreWrittenInTheDialect) {
  auto g = string_grammar({{"const", {{"b", 1}, {"A", {"x\"y", nullptr}}}}});
  EXPECT_TRUE(full_match(g, call("f", "{s:{A:[" + q("x\"y") + ",null],b:1}}")));
  EXPECT_FALSE(full_match(g, call("f", R"({s:{"b":1,"A":["x\"y",null]}})")));
  // An enum value holding the delimiter cannot be written: only the others remain.
  auto e = string_grammar({{"enum", {"ok", "a" + kQ + "b"}}});
  EXPECT_TRUE(full_match(e, call("f", "{s:" + q("ok") + "}")));
  EXPECT_FALSE(viable_prefix(e, "<|tool_call>call:f{s:" + q("a")));
  // Any value: keys bare (or strings), strings delimited.
  auto any = string_grammar(Json::object());
  EXPECT_TRUE(full_match(any, call("f", "{s:{k:" + q("v") + ",n:[1,null,{}]," + q("odd key") + ":false}}")));
  EXPECT_FALSE(full_match(any, call("f", "{s:\"v\"}")));
  // A declared name that is not a bare key is written as a string.
  Json params = {{"type", "object"}, {"properties", {{"a b", {{"type", "integer"}}}}}, {"required", {"a b"}}};
  auto named = compiled(gemma_spec(false, Json::array({{{"name", "f"}, {"parameters", params}}})));
  EXPECT_TRUE(full_match(named, call("f", "{" + q("a b") + ":1}")));
}

TEST(ArgumentDialect, ParallelCallsConcatenatedAndBounded) {
  auto single = compiled(gemma_spec(false, weather_functions()));
  auto parallel = compiled(gemma_spec(true, weather_functions()));
  const std::string one = call("get_weather", "{location:" + q("Rome") + ",unit:" + q("celsius") + "}");
  const std::string ping = call("ping", "{}");
  EXPECT_FALSE(full_match(single, one + ping));
  EXPECT_TRUE(full_match(parallel, one + ping));
  EXPECT_TRUE(full_match(parallel, one + ping + one));  // max_calls 3
  EXPECT_FALSE(full_match(parallel, one + ping + one + ping));
  EXPECT_FALSE(full_match(parallel, one + "\n" + ping));  // nothing between calls
}

TEST(ArgumentDialect, JsonStaysTheDefault) {
  Json spec = gemma_spec(false, weather_functions());
  spec.erase("arguments_dialect");
  auto g = compiled(spec);
  EXPECT_TRUE(full_match(g, call("get_weather", R"({"location": "Paris", "unit": "celsius"})")));
  EXPECT_FALSE(full_match(g, call("get_weather", "{location:" + q("Paris") + ",unit:" + q("celsius") + "}")));
}

TEST(ArgumentDialect, MalformedDialectNamesTheKey) {
  Json spec = gemma_spec(false, weather_functions());
  spec["arguments_dialect"]["quoted"] = true;
  try {
    compile_tool_calls(spec.dump());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.where(), "response_format.tool_calls.arguments_dialect.quoted");
  }
  spec = gemma_spec(false, weather_functions());
  spec["arguments_dialect"]["string_delims"] = {"<|\"|>"};
  EXPECT_THROW(compile_tool_calls(spec.dump()), Error);
  spec["arguments_dialect"]["string_delims"] = {"\xc2\xab", "\xc2\xbb"};  // a non-ASCII close
  EXPECT_THROW(compile_tool_calls(spec.dump()), Error);
}

}  // namespace
}  // namespace ogai::grammar
