// Anthropic Messages API: requests read into the chat request they mean (messages_request.h),
// answers and errors in Anthropic's shape (messages_api.h), streamed events (messages_stream.h).
#include <gtest/gtest.h>

#include "serve/anthropic/messages_api.h"
#include "serve/anthropic/messages_request.h"
#include "serve/anthropic/messages_stream.h"

namespace ogai::serve {
namespace {

ApiRequest parse(const nlohmann::json& body, MessagesRoute route = MessagesRoute::kCreate) {
  return parse_messages_request(body.dump(), route);
}

ApiError error_of(const nlohmann::json& body, MessagesRoute route = MessagesRoute::kCreate) {
  try {
    parse(body, route);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an ApiError for " << body.dump();
  return {};
}

nlohmann::json base() {
  return {{"model", "m"}, {"max_tokens", 8}, {"messages", {{{"role", "user"}, {"content", "Hi"}}}}};
}

TEST(MessagesRequest, SystemMessagesAndOptionsBecomeAChatRequest) {
  nlohmann::json body = base();
  body["system"] = {{{"type", "text"}, {"text", "Be brief."}, {"cache_control", {{"type", "ephemeral"}}}}};
  body["stop_sequences"] = {"END"};
  body["temperature"] = 0.5;
  body["top_k"] = 7;
  body["metadata"] = {{"user_id", "u"}};
  body["stream"] = true;
  ApiRequest r = parse(body);
  EXPECT_TRUE(r.messages_api);
  EXPECT_EQ(r.endpoint, Endpoint::kChat);
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[0].content, "Be brief.");
  EXPECT_EQ(r.messages[1].content, "Hi");
  EXPECT_EQ(r.options.max_new_tokens, 8);
  EXPECT_EQ(r.options.stop, std::vector<std::string>{"END"});
  EXPECT_FLOAT_EQ(*r.options.sampling.temperature, 0.5f);
  EXPECT_EQ(*r.options.sampling.top_k, 7);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.unknown_fields.empty());
  body["frobnicate"] = 1;
  EXPECT_EQ(parse(body).unknown_fields, std::vector<std::string>{"frobnicate"});
}

TEST(MessagesRequest, ToolUseAndToolResultBlocksBecomeCallsAndToolMessages) {
  nlohmann::json body = base();
  body["messages"].push_back(nlohmann::json::parse(R"({"role": "assistant", "content": [
      {"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": "Let me look."},
      {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"z": 1, "a": 2}}]})"));
  body["messages"].push_back(nlohmann::json::parse(R"({"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "42"}]},
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": "bad", "is_error": true},
      {"type": "text", "text": "Thanks"}]})"));
  // The input's key order is the client's, as written in the body.
  std::string text = body.dump();
  text.replace(text.find(R"({"a":2,"z":1})"), 13, R"({"z":1,"a":2})");
  ApiRequest r = parse_messages_request(text, MessagesRoute::kCreate);
  ASSERT_EQ(r.messages.size(), 5u);
  const ChatMessage& a = r.messages[1];
  EXPECT_EQ(a.role, "assistant");
  EXPECT_EQ(a.content, "Let me look.");
  EXPECT_EQ(a.reasoning_content, "hmm");
  ASSERT_EQ(a.tool_calls.size(), 1u);
  EXPECT_EQ(a.tool_calls[0].id, "toolu_1");
  EXPECT_EQ(a.tool_calls[0].name, "f");
  EXPECT_EQ(a.tool_calls[0].arguments, R"({"z":1,"a":2})");
  EXPECT_EQ(r.messages[2].role, "tool");
  EXPECT_EQ(r.messages[2].tool_call_id, "toolu_1");
  EXPECT_EQ(r.messages[2].content, "42");
  EXPECT_EQ(r.messages[3].content, "Error: bad");
  EXPECT_EQ(r.messages[4].role, "user");
  EXPECT_EQ(r.messages[4].content, "Thanks");
}

TEST(MessagesRequest, ToolsToolChoiceAndThinking) {
  nlohmann::json body = base();
  body["tools"] = nlohmann::json::parse(
      R"([{"name": "f", "description": "d", "input_schema": {"type": "object", "properties": {"b": {}, "a": {}}}}])");
  const std::pair<nlohmann::json, ToolChoice::Mode> choices[] = {
      {{{"type", "auto"}}, ToolChoice::Mode::kAuto}, {{{"type", "any"}}, ToolChoice::Mode::kRequired},
      {{{"type", "none"}}, ToolChoice::Mode::kNone}, {{{"type", "tool"}, {"name", "f"}}, ToolChoice::Mode::kFunction}};
  for (const auto& [choice, mode] : choices) {
    body["tool_choice"] = choice;
    EXPECT_EQ(parse(body).chat.tool_choice.mode, mode) << choice.dump();
  }
  std::string text = body.dump();  // sorted keys; the schema keeps the client's order
  text.replace(text.find(R"({"a":{},"b":{}})"), 15, R"({"b":{},"a":{}})");
  ApiRequest r = parse_messages_request(text, MessagesRoute::kCreate);
  ASSERT_EQ(r.chat.tools.size(), 1u);
  EXPECT_EQ(r.chat.tools[0].name, "f");
  EXPECT_EQ(r.chat.tools[0].description, "d");
  EXPECT_EQ(r.chat.tools[0].parameters, R"({"properties":{"b":{},"a":{}},"type":"object"})");
  EXPECT_EQ(r.chat.tool_choice.function, "f");
  body["tool_choice"] = {{"type", "any"}, {"disable_parallel_tool_use", true}};
  EXPECT_FALSE(parse(body).chat.parallel_tool_calls);
  body["thinking"] = {{"type", "enabled"}, {"budget_tokens", 1024}};
  EXPECT_EQ(parse(body).chat.template_kwargs.at("enable_thinking"), "true");
  body["thinking"] = {{"type", "disabled"}};
  EXPECT_EQ(parse(body).chat.template_kwargs.at("enable_thinking"), "false");
}

TEST(MessagesRequest, AFinalAssistantMessageIsContinued) {
  nlohmann::json body = base();
  body["messages"].push_back({{"role", "assistant"}, {"content", "Once"}});
  ApiRequest r = parse(body);
  EXPECT_TRUE(r.continue_final_message);
  EXPECT_FALSE(r.add_generation_prompt);
}

TEST(MessagesRequest, CountTokensNeedsNoMaxTokens) {
  nlohmann::json body = base();
  body.erase("max_tokens");
  EXPECT_EQ(error_of(body).param, "max_tokens");
  EXPECT_NO_THROW(parse(body, MessagesRoute::kCountTokens));
}

TEST(MessagesRequest, BadInputIsA400NamingTheAnthropicField) {
  auto with = [](const char* key, nlohmann::json value) {
    nlohmann::json b = base();
    b[key] = std::move(value);
    return b;
  };
  const std::pair<nlohmann::json, std::string> cases[] = {
      {with("messages", nlohmann::json::array()), "messages"},
      {with("messages", {{{"role", "system"}, {"content", "x"}}}), "messages[0].role"},
      {with("messages", {{{"role", "user"}}}), "messages[0].content"},
      {with("messages", {{{"role", "user"}, {"content", nlohmann::json::array()}}}), "messages[0].content"},
      {with("messages", {{{"role", "user"}, {"content", {{{"type", "document"}}}}}}), "messages[0].content[0].type"},
      {with("messages", {{{"role", "user"}, {"content", {{{"type", "image"}}}}}}), "messages[0].content[0].source"},
      {with("messages", {{{"role", "user"}, {"content", {{{"type", "tool_result"}}}}}}),
       "messages[0].content[0].tool_use_id"},
      {with("messages", {{{"role", "user"}, {"content", {{{"type", "tool_result"}, {"tool_use_id", ""}}}}}}),
       "messages[0].content[0].tool_use_id"},
      {with("messages", {{{"role", "assistant"}, {"content", {{{"type", "tool_use"}, {"id", ""}, {"name", "f"}}}}}}),
       "messages[0].content[0].id"},
      {with("messages", {{{"role", "assistant"}, {"content", {{{"type", "tool_use"}, {"id", "t"}, {"name", "f"},
                                                              {"input", 3}}}}}}),
       "messages[0].content[0].input"},
      {with("system", 5), "system"},
      {with("system", {{{"type", "image"}}}), "system[0].type"},
      {with("tools", {{{"name", "f"}}}), "tools[0].input_schema"},
      {with("tools", {{{"type", "bash_20250124"}, {"name", "bash"}}}), "tools[0].type"},
      {with("tools", {{{"input_schema", {{"type", "object"}}}}}), "tools[0].name"},
      {with("tool_choice", "auto"), "tool_choice"},
      {with("tool_choice", {{"type", "tool"}}), "tool_choice.name"},
      {with("stop_sequences", "x"), "stop_sequences"},
      {with("stop_sequences", {1}), "stop_sequences"},
      {with("max_tokens", 0), "max_tokens"},
      {with("thinking", {{"type", "enabled"}}), "thinking.budget_tokens"},
      {with("thinking", {{"type", "maybe"}}), "thinking.type"},
      {with("mcp_servers", nlohmann::json::array()), "mcp_servers"},
      {with("model", nullptr), "model"},
  };
  for (const auto& [body, param] : cases) {
    ApiError e = error_of(body);
    EXPECT_EQ(e.status, 400) << body.dump();
    EXPECT_EQ(e.param, param) << body.dump() << ": " << e.message;
    EXPECT_TRUE(e.message.starts_with(param)) << e.message;
  }
}

TEST(MessagesRequest, ChatNamesInErrorsBecomeAnthropicOnes) {
  ApiError e = invalid_request("tools[2].function.parameters", "tools[2].function.parameters: bad");
  e = with_messages_names(e);
  EXPECT_EQ(e.param, "tools[2].input_schema");
  EXPECT_EQ(e.message, "tools[2].input_schema: bad");
  EXPECT_EQ(with_messages_names(invalid_request("tool_choice.function.name", "x")).param, "tool_choice.name");
  EXPECT_EQ(with_messages_names(invalid_request("stop", "stop: too many")).message, "stop_sequences: too many");
  EXPECT_EQ(with_messages_names(invalid_request("chat_template_kwargs", "x")).param, "thinking");
}

GenerationResult result(std::string text, FinishReason reason, std::size_t tokens = 3) {
  GenerationResult r;
  r.text = std::move(text);
  r.finish_reason = reason;
  r.ids.assign(tokens, 1);
  return r;
}

TEST(MessagesApi, StopReasonsAndTheMatchedStop) {
  EXPECT_STREQ(messages_stop_reason(FinishReason::kLength, std::nullopt, true), "max_tokens");
  EXPECT_STREQ(messages_stop_reason(FinishReason::kStop, std::string("x"), false), "stop_sequence");
  EXPECT_STREQ(messages_stop_reason(FinishReason::kEos, std::nullopt, true), "tool_use");
  EXPECT_STREQ(messages_stop_reason(FinishReason::kEos, std::nullopt, false), "end_turn");
  const std::vector<std::string> stops = {"cd", "c", "zz"};
  // "ab" then the stop: "c" starts there, as "cd" does; the first listed that matches earliest wins.
  EXPECT_EQ(matched_stop(result("ab", FinishReason::kStop), "abcde", stops), "cd");
  EXPECT_EQ(matched_stop(result("ab", FinishReason::kStop), "abzz", stops), "zz");
  EXPECT_EQ(matched_stop(result("ab", FinishReason::kStop), "ab", stops), std::nullopt);  // a stop token id
  EXPECT_EQ(matched_stop(result("ab", FinishReason::kEos), "abcd", stops), std::nullopt);
}

TEST(MessagesApi, TheMessageObject) {
  MessagesMeta meta{"msg_1", "m", 12};
  ChatReply reply{"Sunny.", "think", {{"call_abc", "f", R"({"city":"Paris"})"}}};
  nlohmann::json j = message_json(meta, result("ignored", FinishReason::kEos, 5), &reply, std::nullopt);
  EXPECT_EQ(j["id"], "msg_1");
  EXPECT_EQ(j["type"], "message");
  EXPECT_EQ(j["role"], "assistant");
  EXPECT_EQ(j["stop_reason"], "tool_use");
  EXPECT_TRUE(j["stop_sequence"].is_null());
  EXPECT_EQ(j["usage"], nlohmann::json({{"input_tokens", 12}, {"output_tokens", 5}}));
  ASSERT_EQ(j["content"].size(), 3u);
  EXPECT_EQ(j["content"][0], nlohmann::json({{"type", "thinking"}, {"thinking", "think"}, {"signature", ""}}));
  EXPECT_EQ(j["content"][1], nlohmann::json({{"type", "text"}, {"text", "Sunny."}}));
  EXPECT_EQ(j["content"][2], nlohmann::json({{"type", "tool_use"}, {"id", "toolu_abc"}, {"name", "f"},
                                             {"input", {{"city", "Paris"}}}}));
  // Anthropic's field order, and the input's keys as the model wrote them.
  ChatReply ordered{"", "", {{"call_abc", "f", R"({"z":1,"a":2})"}}};
  EXPECT_EQ(message_json(meta, result("", FinishReason::kEos, 5), &ordered, std::nullopt).dump(),
            R"({"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use",)"
            R"("id":"toolu_abc","name":"f","input":{"z":1,"a":2}}],"stop_reason":"tool_use","stop_sequence":null,)"
            R"("usage":{"input_tokens":12,"output_tokens":5}})");
  nlohmann::json plain = message_json(meta, result("Hi", FinishReason::kStop), nullptr, std::string("END"));
  EXPECT_EQ(plain["content"], nlohmann::json::parse(R"([{"type": "text", "text": "Hi"}])"));
  EXPECT_EQ(plain["stop_reason"], "stop_sequence");
  EXPECT_EQ(plain["stop_sequence"], "END");
}

TEST(MessagesApi, ErrorsInAnthropicsShape) {
  EXPECT_EQ(messages_error_json(invalid_request("max_tokens", "max_tokens: required")),
            nlohmann::json::parse(R"({"type": "error", "error": {"type": "invalid_request_error",
                                                                  "message": "max_tokens: required"}})"));
  EXPECT_EQ(messages_error_json(model_not_found("a", "b"))["error"]["type"], "not_found_error");
  EXPECT_EQ(messages_error_json(internal_error("x"))["error"]["type"], "api_error");
  EXPECT_EQ(messages_error_json(shutting_down())["error"]["type"], "overloaded_error");
  EXPECT_STREQ(messages_error_type(401), "authentication_error");
  EXPECT_STREQ(messages_error_type(429), "rate_limit_error");
}

// The event names of an SSE text, in order.
std::vector<std::string> names(const std::string& sse) {
  std::vector<std::string> out;
  for (std::size_t at = sse.find("event: "); at != std::string::npos; at = sse.find("event: ", at + 1))
    out.push_back(sse.substr(at + 7, sse.find('\n', at) - at - 7));
  return out;
}

TEST(MessagesStream, BlocksOpenAndCloseAsTheReplyChangesKind) {
  MessagesEncoder e({"msg_1", "m", 4}, [](const GenerationResult&) { return std::optional<std::string>(); });
  std::string out = e.start();
  ChatReplyDelta d1;
  d1.reasoning_content = "hm";
  d1.content = "Hi";
  out += e.delta(d1);
  ChatReplyDelta d2;
  d2.tool_calls = {{0, "call_x", "f", ""}, {0, "", "", R"({"a":)"}};
  out += e.delta(d2);
  ChatReplyDelta d3;
  d3.tool_calls = {{0, "", "", "1}"}};
  out += e.delta(d3);
  out += e.finish(result("", FinishReason::kEos, 7));
  EXPECT_EQ(names(out), (std::vector<std::string>{
                            "message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop",
                            "content_block_start", "content_block_delta", "content_block_stop", "content_block_start",
                            "content_block_delta", "content_block_delta", "content_block_stop", "message_delta",
                            "message_stop"}));
  EXPECT_NE(out.find(R"("delta":{"thinking":"hm","type":"thinking_delta"},"index":0)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("delta":{"text":"Hi","type":"text_delta"},"index":1)"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("content_block":{"id":"toolu_x","input":{},"name":"f","type":"tool_use"},"index":2)"),
            std::string::npos) << out;
  EXPECT_NE(out.find(R"({"partial_json":"1}","type":"input_json_delta"})"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("delta":{"stop_reason":"tool_use","stop_sequence":null},"type":"message_delta","usage":{"output_tokens":7})"),
            std::string::npos) << out;
  EXPECT_EQ(names(e.error(shutting_down())), std::vector<std::string>{"error"});
  EXPECT_NE(e.error(shutting_down()).find(R"("type":"overloaded_error")"), std::string::npos);
}

}  // namespace
}  // namespace ogai::serve
