// Tool-call formats and the reply parser: detection from the shared templates, each format's
// calls parsed back (whole and streamed in every split agree), malformed calls kept as content,
// reasoning sections split out, and the rendering fallbacks of chat/tool_prompt.h.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "chat/chat_template.h"
#include "chat/reply_parser.h"
#include "chat/tool_call_format.h"
#include "chat/tool_prompt.h"

namespace ogai::chat {
namespace {

namespace fs = std::filesystem;
const fs::path kTemplates = fs::path(OGAI_SHARED_DIR) / "chat_templates";

std::string template_source(const std::string& file) {
  return ChatTemplate::load(kTemplates / file).select(ChatRequest{}).source();
}

ChatPrompt prompt_for(ToolCallFormat format, bool tools = true) {
  ChatPrompt p;
  p.tool_call_format = format;
  p.parse_tool_calls = tools;
  return p;
}

// Feeds `text` in pieces of `step` bytes, collecting the deltas as a client would.
ChatReply streamed(const ChatPrompt& p, std::string_view text, std::size_t step) {
  ChatReplyParser parser(p);
  ChatReply r;
  auto take = [&](const ChatReplyDelta& d) {
    r.content += d.content;
    r.reasoning_content += d.reasoning_content;
    for (const auto& c : d.tool_calls) {
      if (!c.id.empty()) r.tool_calls.push_back({c.id, c.name, ""});
      r.tool_calls.at(static_cast<std::size_t>(c.index)).arguments += c.arguments;
    }
  };
  for (std::size_t i = 0; i < text.size(); i += step) take(parser.feed(text.substr(i, step)));
  take(parser.finish());
  return r;
}

void expect_same(const ChatReply& a, const ChatReply& b, const std::string& what) {
  EXPECT_EQ(a.content, b.content) << what;
  EXPECT_EQ(a.reasoning_content, b.reasoning_content) << what;
  ASSERT_EQ(a.tool_calls.size(), b.tool_calls.size()) << what;
  for (std::size_t i = 0; i < a.tool_calls.size(); ++i) {
    EXPECT_EQ(a.tool_calls[i].name, b.tool_calls[i].name) << what;
    EXPECT_EQ(a.tool_calls[i].arguments, b.tool_calls[i].arguments) << what;
  }
}

// Whole parse, then every split size agrees with it.
ChatReply parse_all_ways(const ChatPrompt& p, const std::string& text) {
  ChatReply whole = parse_chat_reply(p, text);
  for (std::size_t step = 1; step <= text.size(); ++step) expect_same(whole, streamed(p, text, step), text);
  return whole;
}

TEST(ToolCallFormat, DetectedFromTheSharedTemplates) {
  const std::string qwen = template_source("qwen2.5.tokenizer_config.json");
  EXPECT_EQ(detect_tool_call_format(qwen), ToolCallFormat::kHermes);
  auto support = template_tool_support(qwen);
  EXPECT_TRUE(support.tools && support.tool_calls && support.tool_role);
  const std::string smol = template_source("smollm3.chat_template.jinja");
  EXPECT_EQ(detect_tool_call_format(smol), ToolCallFormat::kHermes);
  EXPECT_EQ(detect_reasoning_markers(smol).open, "<think>");
  support = template_tool_support(smol);
  EXPECT_TRUE(support.tools);
  EXPECT_FALSE(support.tool_calls);
  const std::string gemma = template_source("gemma-3.chat_template.json");
  support = template_tool_support(gemma);
  EXPECT_FALSE(support.tools || support.tool_calls || support.tool_role);
  EXPECT_TRUE(detect_reasoning_markers(gemma).open.empty());
  EXPECT_EQ(detect_tool_call_format("{{ '[TOOL_CALLS]' }}"), ToolCallFormat::kMistral);
  EXPECT_EQ(detect_tool_call_format("{{ '<|python_tag|>' }}"), ToolCallFormat::kLlama3Json);
}

TEST(ToolCallFormat, NamesRoundTrip) {
  for (auto f : {ToolCallFormat::kHermes, ToolCallFormat::kLlama3Json, ToolCallFormat::kMistral, ToolCallFormat::kQwen3Xml,
                 ToolCallFormat::kHarmony, ToolCallFormat::kDeepSeekR1, ToolCallFormat::kCommandR, ToolCallFormat::kGemma4})
    EXPECT_EQ(parse_tool_call_format(tool_call_format_name(f)), f);
  EXPECT_FALSE(parse_tool_call_format("xml").has_value());
}

TEST(ReplyParser, WrittenCallsParseBackInEveryFormat) {
  const std::vector<ToolCall> calls = {{"", "get_weather", R"({"city":"Paris","days":[1,2]})"},
                                       {"", "add", R"({"a":1,"b":"x}{\"y"})"}};
  for (auto f : {ToolCallFormat::kHermes, ToolCallFormat::kLlama3Json, ToolCallFormat::kMistral, ToolCallFormat::kHarmony,
                 ToolCallFormat::kDeepSeekR1, ToolCallFormat::kCommandR, ToolCallFormat::kGemma4}) {
    const std::string text = write_tool_calls(tool_call_syntax(f), calls);
    ChatReply r = parse_all_ways(prompt_for(f), text);
    ASSERT_EQ(r.tool_calls.size(), 2u) << text;
    EXPECT_EQ(r.content, "") << text;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(r.tool_calls[i].name, calls[i].name);
      EXPECT_EQ(nlohmann::json::parse(r.tool_calls[i].arguments), nlohmann::json::parse(calls[i].arguments));
      EXPECT_TRUE(r.tool_calls[i].id.starts_with("call_"));
    }
  }
}

TEST(ReplyParser, HermesContentAroundCalls) {
  ChatReply r = parse_all_ways(prompt_for(ToolCallFormat::kHermes),
                               "Let me check.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call>\n");
  EXPECT_EQ(r.content, "Let me check.");
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_EQ(r.tool_calls[0].arguments, R"({"x":1})");
  // Arguments given as a JSON string are kept as that string; a missing close at the very end is fine.
  r = parse_all_ways(prompt_for(ToolCallFormat::kHermes), "<tool_call>{\"name\": \"f\", \"arguments\": \"{}\"}");
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_EQ(r.tool_calls[0].arguments, "{}");
}

TEST(ReplyParser, MalformedCallsStayContent) {
  const auto hermes = prompt_for(ToolCallFormat::kHermes);
  for (std::string text : {"<tool_call>\n{\"arguments\": {}}\n</tool_call>", "<tool_call> not json", "a <tool_call"}) {
    ChatReply r = parse_all_ways(hermes, text);
    EXPECT_TRUE(r.tool_calls.empty()) << text;
    EXPECT_EQ(r.content, text);
  }
  // A member without a value reads as null (what templates print for None); arguments that break
  // off after the call's first delta keep the call, closed into JSON.
  ChatReply r = parse_all_ways(hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": }\n</tool_call>");
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_EQ(r.tool_calls[0].arguments, R"({"x":null})");
  r = parse_all_ways(hermes, "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": [1, \"a");
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_EQ(r.tool_calls[0].arguments, R"({"x":[1,"a"]})");
  r = parse_all_ways(prompt_for(ToolCallFormat::kLlama3Json), "{not a call} and text");
  EXPECT_TRUE(r.tool_calls.empty());
  EXPECT_EQ(r.content, "{not a call} and text");
  r = parse_all_ways(prompt_for(ToolCallFormat::kMistral), "[TOOL_CALLS] oops");
  EXPECT_EQ(r.content, "[TOOL_CALLS] oops");
}

TEST(ReplyParser, WithoutToolsNothingIsParsed) {
  const std::string text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>";
  ChatReply r = parse_all_ways(prompt_for(ToolCallFormat::kHermes, /*tools=*/false), text);
  EXPECT_TRUE(r.tool_calls.empty());
  EXPECT_EQ(r.content, text);
}

TEST(ReplyParser, ReasoningIsSplitOut) {
  ChatPrompt p = prompt_for(ToolCallFormat::kHermes);
  p.reasoning_open = "<think>";
  p.reasoning_close = "</think>";
  ChatReply r = parse_all_ways(p, "<think>\nweigh it\n</think>\n\nThe answer.");
  EXPECT_EQ(r.reasoning_content, "weigh it");  // a text field is stripped (transformers' default)
  EXPECT_EQ(r.content, "The answer.");
  r = parse_all_ways(p, "<think>a</think><tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>");
  EXPECT_EQ(r.reasoning_content, "a");
  ASSERT_EQ(r.tool_calls.size(), 1u);
  p.text = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n";  // the prompt opened the section
  r = parse_all_ways(p, "still thinking</think>done");
  EXPECT_EQ(r.reasoning_content, "still thinking");
  EXPECT_EQ(r.content, "done");
  r = parse_all_ways(p, "cut off mid thought");  // the length limit inside the section
  EXPECT_EQ(r.reasoning_content, "cut off mid thought");
  EXPECT_EQ(r.content, "");
  p.text = "<|im_start|>assistant\n<think>\nold</think>\n<|im_end|>\n<|im_start|>assistant\n";  // an earlier turn's
  r = parse_all_ways(p, "plain");
  EXPECT_EQ(r.reasoning_content, "");
  EXPECT_EQ(r.content, "plain");
}

TEST(ToolPrompt, DefinitionsAreChecked) {
  EXPECT_THROW(tool_definitions({{"bad name", "", ""}}), Error);
  EXPECT_THROW(tool_definitions({{"f", "", "[1]"}}), Error);
  EXPECT_THROW(tool_definitions({{"f", "", ""}, {"f", "", ""}}), Error);
  try {
    tool_definitions({{"ok", "", ""}, {"f", "", "{"}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "tools[1].function.parameters");
  }
  Json defs = tool_definitions({{"f", "does f", R"({"type":"object","properties":{"z":{},"a":{}}})"}});
  EXPECT_EQ(defs[0]["function"]["parameters"]["properties"].begin().key(), "z");  // order kept
}

TEST(ToolPrompt, QwenRendersToolsCallsAndResults) {
  ChatTemplate t = ChatTemplate::load(kTemplates / "qwen2.5.tokenizer_config.json");
  const std::string source = t.select(ChatRequest{}).source();
  std::vector<ChatMessage> messages = {{"user", "Weather in Paris?"},
                                       {"assistant", "", {{"call_1", "get_weather", R"({"city":"Paris"})"}}},
                                       {"tool", "sunny", {}, "call_1"}};
  ChatOptions options;
  const Json tools = tool_definitions({{"get_weather", "", R"({"type":"object"})"}});
  ChatRequest r = tool_chat_request(messages, options, tools, template_tool_support(source),
                                    tool_call_syntax(ToolCallFormat::kHermes));
  r.add_generation_prompt = true;
  const std::string text = t.render(r);
  EXPECT_NE(text.find("\"name\": \"get_weather\""), std::string::npos) << text;
  EXPECT_NE(text.find("{\"city\": \"Paris\"}"), std::string::npos) << text;  // arguments as an object
  EXPECT_NE(text.find("<tool_response>\nsunny\n</tool_response>"), std::string::npos) << text;
}

TEST(ToolPrompt, GemmaGetsOgaisFallbacks) {
  ChatTemplate t = ChatTemplate::load(kTemplates / "gemma-3.chat_template.json");
  t.set_special_token("bos_token", "<bos>");
  const std::string source = t.select(ChatRequest{}).source();
  std::vector<ChatMessage> messages = {{"user", "Weather?"},
                                       {"assistant", "", {{"call_1", "get_weather", R"({"city":"Paris"})"}}},
                                       {"tool", "sunny", {}, "call_1"},
                                       {"tool", "windy", {}, "call_2"}};
  const Json tools = tool_definitions({{"get_weather", "", ""}});
  ChatRequest r = tool_chat_request(messages, ChatOptions{}, tools, template_tool_support(source),
                                    tool_call_syntax(ToolCallFormat::kHermes));
  const std::string text = t.render(r);  // Gemma refuses roles that do not alternate: one user turn for both results
  EXPECT_NE(text.find("<tools>"), std::string::npos) << text;
  EXPECT_NE(text.find("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"Paris\"}}\n</tool_call>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sunny\n</tool_response>\n<tool_response>\nwindy"), std::string::npos) << text;
}

}  // namespace
}  // namespace ogai::chat
