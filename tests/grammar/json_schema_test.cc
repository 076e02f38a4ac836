// JSON Schema compilation: for each supported keyword, texts that validate are full matches and
// texts that do not are rejected (the end-to-end validation against python3-jsonschema is in
// tests/grammar/schema_validation_test.py).
#include <gtest/gtest.h>

#include "grammar/json_schema.h"
#include "grammar_test_util.h"

namespace ogai::grammar {
namespace {

std::shared_ptr<const CompiledGrammar> schema(std::string_view text, int whitespace = 0) {
  JsonSchemaOptions options;
  options.whitespace = whitespace;
  return CompiledGrammar::compile(compile_json_schema(text, "test", options));
}

TEST(JsonSchema, ObjectPropertiesRequiredAndOrder) {
  auto g = schema(R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}},
                      "required":["b"],"additionalProperties":false})", 8);
  EXPECT_TRUE(full_match(g, R"({"b":"x"})"));
  EXPECT_TRUE(full_match(g, R"({"a": 1, "b": "x", "c": true})"));
  EXPECT_TRUE(full_match(g, "{\n  \"a\": -12,\n  \"b\": \"\"\n}"));
  EXPECT_FALSE(full_match(g, R"({"a":1})"));          // b is required
  EXPECT_FALSE(full_match(g, R"({"b":"x","d":1})"));  // no additional properties
  EXPECT_FALSE(full_match(g, R"({"b":1})"));
  EXPECT_FALSE(full_match(g, R"({"b":"x",})"));
  EXPECT_FALSE(full_match(g, R"({"b":"x","a":1})"));  // declared order
}

// Issue 37 item 1: an object's width never becomes stack depth while its rules are built (30,000
// properties crashed the server). The tail of a wide object still matches as declared.
TEST(JsonSchema, WideObjectsCompileWithoutRecursion) {
  for (const bool required : {false, true}) {
    std::string text = R"({"type":"object","properties":{)", names = "[";
    const int width = 30000;
    for (int i = 0; i < width; ++i) {
      text += (i ? ",\"p" : "\"p") + std::to_string(i) + R"(":{"type":"string"})";
      names += (i ? ",\"p" : "\"p") + std::to_string(i) + "\"";
    }
    text += "}";
    if (required) text += R"(,"required":)" + names + "]";
    auto g = schema(text + "}");
    if (!required) continue;  // compiled; matching 30,000 open choices at once is fail-closed (matcher.h)
    std::string all = "{";
    for (int i = 0; i < width; ++i) all += (i ? ",\"p" : "\"p") + std::to_string(i) + "\":\"\"";
    EXPECT_TRUE(full_match(g, all + "}"));
    EXPECT_FALSE(full_match(g, "{}"));
    EXPECT_FALSE(full_match(g, R"({"p1":"","p0":""})"));
  }
}

TEST(JsonSchema, MinAndMaxPropertiesOverDeclaredMembers) {
  auto g = schema(R"({"type":"object","properties":{"a":{"const":1},"b":{"const":2},"c":{"const":3}},
                      "required":["b"],"minProperties":2,"maxProperties":2})");
  EXPECT_TRUE(full_match(g, R"({"a":1,"b":2})"));
  EXPECT_TRUE(full_match(g, R"({"b":2,"c":3})"));
  EXPECT_FALSE(full_match(g, R"({"b":2})"));
  EXPECT_FALSE(full_match(g, R"({"a":1,"b":2,"c":3})"));
  EXPECT_FALSE(full_match(g, R"({"a":1,"c":3})"));
}

TEST(JsonSchema, RequiredWithoutPropertiesTakesAnyValue) {
  auto g = schema(R"({"type":"object","required":["k"]})");
  EXPECT_TRUE(full_match(g, R"({"k":[1,{"x":null}]})"));
  EXPECT_FALSE(full_match(g, R"({})"));
}

TEST(JsonSchema, MapWithAdditionalPropertiesSchema) {
  auto g = schema(R"({"type":"object","additionalProperties":{"type":"number"}})");
  EXPECT_TRUE(full_match(g, R"({})"));
  EXPECT_TRUE(full_match(g, R"({"x":1.5,"y":-2e3})"));
  EXPECT_FALSE(full_match(g, R"({"x":"1"})"));
}

TEST(JsonSchema, ArraysItemsPrefixItemsAndCounts) {
  auto g = schema(R"({"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":3})", 1);
  EXPECT_TRUE(full_match(g, "[1,2]"));
  EXPECT_TRUE(full_match(g, "[1, 2, 3]"));
  EXPECT_FALSE(full_match(g, "[1]"));
  EXPECT_FALSE(full_match(g, "[1,2,3,4]"));
  EXPECT_FALSE(full_match(g, "[1,\"a\"]"));
  auto t = schema(R"({"type":"array","prefixItems":[{"type":"string"},{"type":"null"}],"items":false})");
  EXPECT_TRUE(full_match(t, R"(["a",null])"));
  EXPECT_TRUE(full_match(t, R"(["a"])"));
  EXPECT_TRUE(full_match(t, R"([])"));
  EXPECT_FALSE(full_match(t, R"(["a",null,1])"));
  EXPECT_FALSE(full_match(t, R"([null])"));
  auto r = schema(R"({"type":"array","prefixItems":[{"const":1}],"items":{"type":"boolean"},"minItems":2})");
  EXPECT_TRUE(full_match(r, "[1,true,false]"));
  EXPECT_FALSE(full_match(r, "[1]"));
}

TEST(JsonSchema, EnumConstAndLargeSharedPrefixes) {
  auto g = schema(R"({"enum":["red","green",3,null,{"a":[1]}]})");
  EXPECT_TRUE(full_match(g, R"("red")"));
  EXPECT_TRUE(full_match(g, "3"));
  EXPECT_TRUE(full_match(g, R"({"a":[1]})"));
  EXPECT_FALSE(full_match(g, R"("blue")"));
  EXPECT_FALSE(full_match(g, "30"));
  std::string big = R"({"enum":[)";
  for (int i = 0; i < 20000; ++i) big += (i ? "," : "") + std::string("\"item-") + std::to_string(i) + "\"";
  big += "]}";
  auto e = schema(big);
  EXPECT_TRUE(full_match(e, R"("item-19999")"));
  EXPECT_FALSE(full_match(e, R"("item-20000")"));
  auto c = schema(R"({"const":"a\"b"})");
  EXPECT_TRUE(full_match(c, R"("a\"b")"));
}

TEST(JsonSchema, RefsDefsAndRecursion) {
  auto g = schema(R"({"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{
      "v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v"],
      "additionalProperties":false}}})");
  EXPECT_TRUE(full_match(g, R"({"v":1,"kids":[{"v":2},{"v":3,"kids":[]}]})"));
  EXPECT_FALSE(full_match(g, R"({"v":1,"kids":[{"kids":[]}]})"));
  auto root = schema(R"({"type":"array","items":{"anyOf":[{"type":"integer"},{"$ref":"#"}]}})");
  EXPECT_TRUE(full_match(root, "[1,[2,[3]],[]]"));
  auto defs = schema(R"({"definitions":{"a~b":{"type":"null"}},"$ref":"#/definitions/a~0b"})");
  EXPECT_TRUE(full_match(defs, "null"));
}

TEST(JsonSchema, AnyOfOneOfAllOfAndTypeLists) {
  auto g = schema(R"({"anyOf":[{"type":"string","maxLength":2},{"type":"integer","minimum":5}]})");
  EXPECT_TRUE(full_match(g, R"("ab")"));
  EXPECT_TRUE(full_match(g, "7"));
  EXPECT_FALSE(full_match(g, "4"));
  EXPECT_FALSE(full_match(g, R"("abc")"));
  auto o = schema(R"({"oneOf":[{"type":"object","properties":{"kind":{"const":"a"}},"required":["kind"]},
                               {"type":"object","properties":{"kind":{"const":"b"},"n":{"type":"integer"}},"required":["kind"]}]})");
  EXPECT_TRUE(full_match(o, R"({"kind":"b","n":1})"));
  auto a = schema(R"({"allOf":[{"type":"boolean"}]})");
  EXPECT_TRUE(full_match(a, "false"));
  auto t = schema(R"({"type":["string","null"]})");
  EXPECT_TRUE(full_match(t, "null"));
  EXPECT_TRUE(full_match(t, R"("x")"));
  EXPECT_FALSE(full_match(t, "1"));
}

TEST(JsonSchema, StringLengthsPatternAndFormats) {
  auto l = schema(R"({"type":"string","minLength":2,"maxLength":3})");
  EXPECT_TRUE(full_match(l, R"("ab")"));
  EXPECT_TRUE(full_match(l, R"("\n\u00e9x")"));  // escapes count as one character
  EXPECT_TRUE(full_match(l, "\"\xC3\xA9\xE2\x82\xAC\""));
  EXPECT_FALSE(full_match(l, R"("a")"));
  EXPECT_FALSE(full_match(l, R"("abcd")"));
  EXPECT_FALSE(full_match(l, R"("\ud800x")"));  // no lone surrogates
  auto p = schema(R"({"type":"string","pattern":"^[a-z]+-[0-9]{2}$"})");
  EXPECT_TRUE(full_match(p, R"("ab-12")"));
  EXPECT_FALSE(full_match(p, R"("ab-123")"));
  auto d = schema(R"({"type":"string","format":"date"})");
  EXPECT_TRUE(full_match(d, R"("2024-02-28")"));
  EXPECT_FALSE(full_match(d, R"("2024-02-30")"));
  EXPECT_FALSE(full_match(d, R"("2024-13-01")"));
  auto dt = schema(R"({"type":"string","format":"date-time"})");
  EXPECT_TRUE(full_match(dt, R"("2024-01-31T23:59:59.5+02:00")"));
  EXPECT_FALSE(full_match(dt, R"("2024-01-31 23:59:59Z")"));
  auto u = schema(R"({"type":"string","format":"uuid"})");
  EXPECT_TRUE(full_match(u, R"("123e4567-e89b-12d3-a456-426614174000")"));
  EXPECT_FALSE(full_match(u, R"("123e4567e89b12d3a456426614174000")"));
  auto e = schema(R"({"type":"string","format":"email"})");
  EXPECT_TRUE(full_match(e, R"("a.b@example.com")"));
  EXPECT_FALSE(full_match(e, R"("a@b")"));
  auto t = schema(R"({"type":"string","format":"time"})");
  EXPECT_TRUE(full_match(t, R"("08:30:00Z")"));
}

TEST(JsonSchema, IntegerBounds) {
  auto g = schema(R"({"type":"integer","minimum":-15,"exclusiveMaximum":120})");
  for (int v = -30; v <= 200; ++v)
    EXPECT_EQ(full_match(g, std::to_string(v)), v >= -15 && v < 120) << v;
  EXPECT_FALSE(full_match(g, "007"));
  EXPECT_FALSE(full_match(g, "-0"));
  auto big = schema(R"({"type":"integer","minimum":1000000})");
  EXPECT_TRUE(full_match(big, "123456789012"));
  EXPECT_FALSE(full_match(big, "999999"));
}

TEST(JsonSchema, NumberBounds) {
  auto g = schema(R"({"type":"number","exclusiveMinimum":-2,"maximum":3})");
  EXPECT_TRUE(full_match(g, "-1.99"));
  EXPECT_TRUE(full_match(g, "3"));
  EXPECT_TRUE(full_match(g, "3.000"));
  EXPECT_TRUE(full_match(g, "0.5"));
  EXPECT_TRUE(full_match(g, "-0.5"));
  EXPECT_FALSE(full_match(g, "-2"));
  EXPECT_FALSE(full_match(g, "-2.0"));
  EXPECT_FALSE(full_match(g, "3.01"));
  EXPECT_FALSE(full_match(g, "-2.5"));
  EXPECT_FALSE(full_match(g, "1e2"));
  auto n = schema(R"({"type":"number"})");
  EXPECT_TRUE(full_match(n, "-0.5e-7"));
  EXPECT_FALSE(full_match(n, "01"));
  EXPECT_FALSE(full_match(n, ".5"));
}

TEST(JsonSchema, TrueSchemaAndJsonObject) {
  auto g = schema("true");
  EXPECT_TRUE(full_match(g, R"([1,"a",{"b":null},true])"));
  EXPECT_FALSE(full_match(g, "[1,]"));
  auto o = CompiledGrammar::compile(compile_json_object("test"));
  EXPECT_TRUE(full_match(o, R"({"a":{"b":[]}})"));
  EXPECT_FALSE(full_match(o, "[]"));
  EXPECT_FALSE(full_match(o, R"("a")"));
}

TEST(JsonSchema, WhitespaceIsCompactByDefaultAndBoundedWhenAsked) {
  const char* s = R"({"type":"object","properties":{"a":{"type":"integer"}}})";
  EXPECT_TRUE(full_match(schema(s), R"({"a":1})"));
  EXPECT_FALSE(full_match(schema(s), R"({"a": 1})"));
  EXPECT_TRUE(full_match(schema(s, 2), "{\n \"a\":  1}"));
  EXPECT_FALSE(full_match(schema(s, 2), R"({"a":   1})"));  // a run of 3 blanks
}

TEST(JsonSchema, MultipleOfAndNonIntegerBounds) {
  auto three = schema(R"({"type":"integer","multipleOf":3})");
  EXPECT_TRUE(full_match(three, "9"));
  EXPECT_TRUE(full_match(three, "-12"));
  EXPECT_TRUE(full_match(three, "0"));
  EXPECT_TRUE(full_match(three, "123456789012"));
  EXPECT_FALSE(full_match(three, "10"));
  EXPECT_FALSE(full_match(three, "9.0"));
  auto cents = schema(R"({"type":"number","multipleOf":0.01,"minimum":0,"maximum":1})");
  EXPECT_TRUE(full_match(cents, "0.5"));
  EXPECT_TRUE(full_match(cents, "1"));
  EXPECT_FALSE(full_match(cents, "0.123"));
  EXPECT_FALSE(full_match(cents, "1.01"));
  EXPECT_FALSE(full_match(cents, "0.07"));  // 0.07 / 0.01 is not integral in doubles: validators reject it
  auto half = schema(R"({"type":"number","minimum":0.5,"exclusiveMaximum":9.5})");
  EXPECT_TRUE(full_match(half, "1"));
  EXPECT_TRUE(full_match(half, "9"));
  EXPECT_FALSE(full_match(half, "0"));
  EXPECT_FALSE(full_match(half, "9.5"));
  auto close = schema(R"({"type":"number","minimum":0.25,"maximum":0.75})");
  EXPECT_TRUE(full_match(close, "0.5"));
  EXPECT_FALSE(full_match(close, "0.2"));
}

TEST(JsonSchema, NewFormats) {
  auto f = [](const char* format) { return schema(std::string(R"({"type":"string","format":")") + format + "\"}"); };
  EXPECT_TRUE(full_match(f("ipv4"), R"("192.168.0.255")"));
  EXPECT_FALSE(full_match(f("ipv4"), R"("256.1.1.1")"));
  EXPECT_FALSE(full_match(f("ipv4"), R"("01.1.1.1")"));
  EXPECT_TRUE(full_match(f("ipv6"), R"("::1")"));
  EXPECT_TRUE(full_match(f("ipv6"), R"("2001:db8::8a2e:370:7334")"));
  EXPECT_TRUE(full_match(f("ipv6"), R"("::ffff:10.0.0.1")"));
  EXPECT_FALSE(full_match(f("ipv6"), R"(":::")"));
  EXPECT_FALSE(full_match(f("ipv6"), R"("1:2:3:4:5:6:7:8:9")"));
  EXPECT_TRUE(full_match(f("hostname"), R"("api.example-1.com")"));
  EXPECT_FALSE(full_match(f("hostname"), R"("-bad.com")"));
  EXPECT_FALSE(full_match(f("hostname"), R"("xn--abc.com")"));
  EXPECT_TRUE(full_match(f("uri"), R"("https://example.com:8080/a/b?c=d#e")"));
  EXPECT_TRUE(full_match(f("uri"), R"("urn:isbn:0451450523")"));
  EXPECT_FALSE(full_match(f("uri"), R"("/relative/path")"));
  EXPECT_FALSE(full_match(f("uri"), R"("https://exa mple.com")"));
  EXPECT_TRUE(full_match(f("uri-reference"), R"("/relative/path?x#y")"));
  EXPECT_TRUE(full_match(f("uri-reference"), R"("https://a.io")"));
  EXPECT_TRUE(full_match(f("duration"), R"("P1Y2M3DT4H5M6S")"));
  EXPECT_TRUE(full_match(f("duration"), R"("P2W")"));
  EXPECT_FALSE(full_match(f("duration"), R"("P")"));
  EXPECT_FALSE(full_match(f("duration"), R"("PT")"));
  EXPECT_TRUE(full_match(f("idn-email"), R"("a.b@example.org")"));
}

TEST(JsonSchema, UnknownKeywordsIgnoredAndUnenforcedFormatsReported) {
  std::vector<UnenforcedKeyword> out;
  JsonSchemaOptions options;
  options.unenforced = &out;
  auto g = CompiledGrammar::compile(compile_json_schema(
      R"({"@type":"x","esriDocumentation":{"a":1},"type":"object","readonly":true,
          "properties":{"t":{"type":"string","format":"uri-template","isAutoIncrement":false},
                        "d":{"format":"date"}},"required":["t"]})",
      "test", options));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].keyword, "format");
  EXPECT_EQ(out[0].value, "uri-template");
  EXPECT_EQ(out[0].pointer, "#/properties/t/format");
  EXPECT_TRUE(full_match(g, R"({"t":"{x}","d":"2024-02-28"})"));
  EXPECT_FALSE(full_match(g, R"({"t":"{x}","d":"2024-02-30"})"));
}

TEST(JsonSchema, CombinationsMergeAndDistribute) {
  auto all = schema(R"({"allOf":[{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]},
                                 {"properties":{"a":{"maximum":3},"b":{"type":"string"}}}]})");
  EXPECT_TRUE(full_match(all, R"({"a":2,"b":"x"})"));
  EXPECT_FALSE(full_match(all, R"({"a":4})"));
  EXPECT_FALSE(full_match(all, R"({"b":"x"})"));
  auto typed = schema(R"({"type":"object","required":["k"],"oneOf":[{"properties":{"k":{"const":1}}},
                                                                   {"properties":{"k":{"const":2}}}]})");
  EXPECT_TRUE(full_match(typed, R"({"k":2})"));
  EXPECT_FALSE(full_match(typed, R"({"k":3})"));
  auto closed = schema(R"({"allOf":[{"properties":{"a":{}}},{"additionalProperties":false}]})");
  EXPECT_FALSE(full_match(closed, R"({"a":1})"));  // a is additional to the second schema
  EXPECT_TRUE(full_match(closed, "{}"));
  auto no_null = schema(R"({"type":["string","null"],"not":{"const":null}})");
  EXPECT_TRUE(full_match(no_null, R"("x")"));
  EXPECT_FALSE(full_match(no_null, "null"));
}

}  // namespace
}  // namespace ogai::grammar
