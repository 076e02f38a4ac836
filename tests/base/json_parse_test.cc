// base/json_parse.h: JSON text -> nlohmann DOM with the nesting limit applied during the parse
// (issue 12 finding 9: a 150,000-deep object followed by a sibling key overflowed the stack when
// nlohmann copied it into the ordered map, long before the 256-level check after the parse).
#include "base/json_lenient.h"
#include "base/json_parse.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ogai/error.h"

namespace ogai {
namespace {

// `levels` objects nested in each other, every level followed by a sibling key.
std::string nested_objects(int levels) {
  std::string s;
  for (int i = 0; i < levels; ++i) s += "{\"a\":";
  s += "1";
  for (int i = 0; i < levels; ++i) s += ",\"b\":2}";
  return s;
}

// Only the outermost level has a sibling: one copy of the whole deep object.
std::string deep_then_sibling(int levels) {
  std::string s = "{\"a\":";
  for (int i = 1; i < levels; ++i) s += "[";
  s += "1";
  for (int i = 1; i < levels; ++i) s += "]";
  return s + ",\"b\":2}";
}

template <typename J>
Error error_of(const std::string& text) {
  try {
    (void)parse_json_bounded<J>(text, "doc.json");
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(ErrorCode::kInternal, "", "");
}

TEST(JsonParse, DeepNestingFailsDuringTheParse) {
  for (const std::string& text : {deep_then_sibling(150000), nested_objects(150000), std::string(200000, '[')}) {
    Error e = error_of<nlohmann::ordered_json>(text);
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_EQ(e.where(), "doc.json");
    EXPECT_EQ(e.message(), "JSON nested more than 256 levels deep");
    EXPECT_EQ(error_of<nlohmann::json>(text).message(), "JSON nested more than 256 levels deep");
  }
}

TEST(JsonParse, NestingUpToTheLimitParses) {
  nlohmann::ordered_json j = parse_json_bounded<nlohmann::ordered_json>(nested_objects(kMaxJsonDepth), "doc.json");
  EXPECT_EQ(j["b"], 2);
  EXPECT_EQ(error_of<nlohmann::ordered_json>(nested_objects(kMaxJsonDepth + 1)).message(),
            "JSON nested more than 256 levels deep");
  EXPECT_EQ(parse_json_bounded<nlohmann::json>(R"({"x": [1, {"y": null}]})", "d").dump(), R"({"x":[1,{"y":null}]})");
}

TEST(JsonParse, MalformedTextNamesTheDocument) {
  Error e = error_of<nlohmann::ordered_json>("{\"a\": ");
  EXPECT_EQ(e.code(), ErrorCode::kParse);
  EXPECT_EQ(e.where(), "doc.json");
  EXPECT_TRUE(e.message().starts_with("invalid JSON: ")) << e.message();
}

// The lenient form (J::parse(text, nullptr, false) before issue 37): deep text reads as "not
// JSON" instead of building a DOM that recursive printing or copying then overflows on.
TEST(JsonParse, LenientFormDiscardsTooDeepText) {
  for (const std::string& text : {deep_then_sibling(150000), nested_objects(150000), std::string(200000, '['),
                                  std::string(100000, '[') + std::string(100000, ']')}) {
    EXPECT_TRUE(parse_json_or_discarded<nlohmann::json>(text).is_discarded());
    EXPECT_TRUE(parse_json_or_discarded<nlohmann::ordered_json>(text).is_discarded());
  }
  EXPECT_TRUE(parse_json_or_discarded<nlohmann::json>("{\"a\":").is_discarded());
  const auto ok = parse_json_or_discarded<nlohmann::json>(std::string(255, '[') + std::string(255, ']'));
  ASSERT_FALSE(ok.is_discarded());
  EXPECT_EQ(ok.dump().size(), 510u);
  EXPECT_TRUE(parse_json_or_discarded<nlohmann::json>(std::string(257, '[') + std::string(257, ']')).is_discarded());
}

}  // namespace
}  // namespace ogai
