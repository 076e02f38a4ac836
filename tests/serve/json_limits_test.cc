// Request JSON limits checked before a DOM is built (issue 12 findings 1 and 6): nesting depth,
// container and value counts, numbers beyond double's range; each refusal names the top-level
// field, and syntax errors are left to the DOM parse.
#include <gtest/gtest.h>

#include <string>

#include "serve/common/api_error.h"
#include "serve/common/api_request.h"
#include "serve/common/json_limits.h"

namespace ogai::serve {
namespace {

ApiError refusal(const std::string& body, const JsonLimits& limits = {}) {
  try {
    check_json_limits(body, limits);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "accepted: " << body.substr(0, 120);
  return {};
}

std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonLimits, AcceptsOrdinaryRequests) {
  EXPECT_NO_THROW(check_json_limits(
      R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"temperature":0.5,)"
      R"("logit_bias":{"3":-1},"stop":["a","b"],"max_tokens":12345678901234567890})"));
  EXPECT_NO_THROW(check_json_limits(R"({"prompt":)" + nested(63) + "}"));  // the request object + 63
}

TEST(JsonLimits, RefusesDeepNestingNamingTheField) {
  ApiError e = refusal(R"({"model":"m","prompt":)" + nested(64) + "}");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "prompt");
  EXPECT_NE(e.message.find("nested more than 64 deep"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("an array of 1 items"), std::string::npos) << e.message;
  ApiError top = refusal(nested(100));
  EXPECT_EQ(top.param, "");
  EXPECT_EQ(top.code, "invalid_json");
}

TEST(JsonLimits, RefusesTooManyContainersAndValues) {
  std::string wide = R"({"model":"m","stop":[)";
  for (int i = 0; i < 20; ++i) wide += "[],";
  wide += "[]]}";
  ApiError e = refusal(wide, {.max_depth = 64, .max_containers = 10, .max_values = 1000});
  EXPECT_EQ(e.param, "stop");
  EXPECT_NE(e.message.find("more than 10 JSON arrays and objects"), std::string::npos) << e.message;
  std::string ids = R"({"model":"m","prompt":[1)";
  for (int i = 0; i < 50; ++i) ids += ",1";
  ids += "]}";
  ApiError v = refusal(ids, {.max_depth = 64, .max_containers = 10, .max_values = 40});
  EXPECT_EQ(v.param, "prompt");
  EXPECT_NE(v.message.find("more than 40 JSON values"), std::string::npos) << v.message;
}

TEST(JsonLimits, RefusesNumbersBeyondDoubleNamingTheField) {
  for (const char* number : {"1e999", "-1e999", "1e400"}) {
    ApiError e = refusal(std::string(R"({"model":"m","temperature":)") + number + "}");
    EXPECT_EQ(e.param, "temperature") << number;
    EXPECT_NE(e.message.find(number), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("out of the range"), std::string::npos) << e.message;
  }
  ApiError big = refusal(R"({"max_tokens":)" + std::string(10000, '9') + "}");
  EXPECT_EQ(big.param, "max_tokens");
  EXPECT_LT(big.message.size(), 200u) << "the number is quoted whole";
  EXPECT_EQ(refusal(R"({"logit_bias":{"5":1e999}})").param, "logit_bias");
}

TEST(JsonLimits, LeavesSyntaxErrorsToTheParser) {
  EXPECT_NO_THROW(check_json_limits("{not json"));
  EXPECT_NO_THROW(check_json_limits(R"({"model": "m",})"));
  // Through the request parser: the DOM parse's message, with its position.
  try {
    parse_chat_request(R"({"model": "m",})");
    ADD_FAILURE() << "accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, "invalid_json");
    EXPECT_NE(e.message.find("line 1, column 15"), std::string::npos) << e.message;
  }
}

}  // namespace
}  // namespace ogai::serve

// Per-field budgets (issue 28 finding 3): the 17th stop string, stop text over its bytes, a
// 1025-entry logit_bias are refused naming the field and the limit, before any DOM exists.
namespace ogai::serve {
namespace {

TEST(JsonFieldBudgets, RefuseTheItemPastTheLimitNamingFieldAndFlag) {
  std::string stop = R"({"model":"m","prompt":"x","stop":[)";
  for (int i = 0; i < 17; ++i) stop += (i ? ",\"s" : "\"s") + std::to_string(i) + "\"";
  ApiError e = refusal(stop + "]}");
  EXPECT_EQ(e.param, "stop");
  EXPECT_NE(e.message.find("16"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("--max-stop-strings"), std::string::npos) << e.message;
  EXPECT_NO_THROW(check_json_limits(stop + "]}", JsonLimits{64, 100'000, 1'000'000, default_field_budgets(17, 4096)}));

  e = refusal(R"({"stop":")" + std::string(5000, 'y') + "\"}");
  EXPECT_EQ(e.param, "stop");
  EXPECT_NE(e.message.find("--max-stop-bytes"), std::string::npos) << e.message;

  std::string bias = R"({"logit_bias":{)";
  for (int i = 0; i < 1025; ++i) bias += (i ? ",\"" : "\"") + std::to_string(i) + "\":1";
  EXPECT_EQ(refusal(bias + "}}").param, "logit_bias");
  EXPECT_NO_THROW(check_json_limits(R"({"logit_bias":{"1":2},"stop":["a","b"],"messages":[{"role":"user"}]})"));
}

// The request DOM is built in the same pass that checks the limits (one parse per body), keeping
// the client's key order; a duplicate key keeps its first place and the last value.
TEST(JsonLimits, ParseJsonBodyBuildsTheOrderedDomInTheLimitPass) {
  EXPECT_EQ(parse_json_body(R"({"b":1,"a":{"z":1,"y":[2,{"x":null}]},"b":3})").dump(),
            R"({"b":3,"a":{"z":1,"y":[2,{"x":null}]}})");
  std::string wide = "{";
  for (int i = 0; i < 100; ++i) wide += "\"k" + std::to_string(99 - i) + "\":" + std::to_string(i) + ",";
  wide += R"("k99":-1})";
  const RequestJson w = parse_json_body(wide);
  EXPECT_EQ(w.size(), 100u);
  EXPECT_EQ(w.begin().key(), "k99");
  EXPECT_EQ(w.at("k99"), -1);
  ApiError syntax;
  try {
    parse_json_body(R"({"model": "m",})");
  } catch (const ApiError& e) {
    syntax = e;
  }
  EXPECT_EQ(syntax.code, "invalid_json");
  EXPECT_NE(syntax.message.find("not valid JSON"), std::string::npos) << syntax.message;
  EXPECT_THROW(parse_json_body("[1]"), ApiError);
  ApiError deep;
  try {
    parse_json_body(R"({"model":"m","prompt":)" + nested(64) + "}");
  } catch (const ApiError& e) {
    deep = e;
  }
  EXPECT_EQ(deep.param, "prompt");
}

}  // namespace
}  // namespace ogai::serve
