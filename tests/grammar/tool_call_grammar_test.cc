// Forced tool calls (grammar/tool_call_grammar.h): the grammar accepts exactly the calls the
// format writes, with arguments valid against each function's schema; parallel or single; a
// schema keyword it cannot enforce fails closed at the function's location.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "grammar/tool_call_grammar.h"
#include "grammar_test_util.h"

namespace ogai::grammar {
namespace {

using Json = nlohmann::ordered_json;

Json hermes_spec(bool parallel) {
  return {{"begin", ""}, {"call_open", "<tool_call>\n"}, {"call_close", "\n</tool_call>"}, {"separator", "\n"},
          {"end", ""}, {"arguments_key", "arguments"}, {"parallel", parallel},
          {"functions",
           {{{"name", "add"},
             {"parameters", {{"type", "object"},
                             {"properties", {{"a", {{"type", "integer"}, {"maximum", 9}}}}},
                             {"required", {"a"}}, {"additionalProperties", false}}},
             {"where", "tools[0].function.parameters"}},
            {{"name", "ping"}, {"where", "tools[1].function.parameters"}}}}};
}

std::shared_ptr<const CompiledGrammar> compiled(const Json& spec) {
  return CompiledGrammar::compile(compile_tool_calls(spec.dump()));
}

const std::string kAdd = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 3}}\n</tool_call>";
const std::string kPing = "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>";

TEST(ToolCallGrammar, AcceptsValidCallsOnly) {
  auto g = compiled(hermes_spec(false));
  EXPECT_TRUE(full_match(g, kAdd));
  EXPECT_TRUE(full_match(g, kPing));
  EXPECT_FALSE(full_match(g, kAdd + "\n" + kPing));  // not parallel
  EXPECT_FALSE(full_match(g, "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 12}}\n</tool_call>"));
  EXPECT_FALSE(full_match(g, "<tool_call>\n{\"name\": \"sub\", \"arguments\": {\"a\": 1}}\n</tool_call>"));
  EXPECT_FALSE(viable_prefix(g, "Sure! <tool_call>"));
}

TEST(ToolCallGrammar, ParallelAllowsSeveral) {
  auto g = compiled(hermes_spec(true));
  EXPECT_TRUE(full_match(g, kAdd + "\n" + kPing + "\n" + kAdd));
  EXPECT_FALSE(full_match(g, ""));
}

TEST(ToolCallGrammar, ListFormat) {
  Json spec = hermes_spec(true);
  spec["begin"] = "[TOOL_CALLS][";
  spec["call_open"] = "";
  spec["call_close"] = "";
  spec["separator"] = ", ";
  spec["end"] = "]";
  auto g = compiled(spec);
  EXPECT_TRUE(full_match(g, "[TOOL_CALLS][{\"name\": \"add\", \"arguments\": {\"a\": 1}}, "
                            "{\"name\": \"ping\", \"arguments\": {}}]"));
}

TEST(ToolCallGrammar, UnenforceableSchemaFailsClosedAtTheFunction) {
  Json spec = hermes_spec(false);
  spec["functions"][1]["parameters"] = {{"type", "object"}, {"$dynamicRef", "#m"}};
  try {
    compile_tool_calls(spec.dump());
    FAIL() << "expected kUnsupported";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.where(), "tools[1].function.parameters");
    EXPECT_NE(std::string(e.what()).find("'$dynamicRef' at '#/$dynamicRef'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(compile_tool_calls("[]"), Error);
  EXPECT_THROW(compile_tool_calls(R"({"functions": []})"), Error);
}

}  // namespace
}  // namespace ogai::grammar
