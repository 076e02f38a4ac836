// Parsed chat replies in OpenAI's JSON (serve/common/chat_reply_json.h): message fields, the
// "tool_calls" finish reason, and streamed deltas shaped as OpenAI streams tool calls.
#include <gtest/gtest.h>

#include "serve/openai/api_response.h"
#include "serve/common/chat_reply_json.h"
#include "serve/openai/stream_encoder.h"

namespace ogai::serve {
namespace {

const ResponseMeta kMeta{Endpoint::kChat, "chatcmpl-1", 5, "m"};

TEST(ChatReplyJson, MessageFields) {
  ChatReply reply{"", "thought", {{"call_1", "f", R"({"a":1})"}}};
  GenerationResult r;
  r.text = "raw";
  r.finish_reason = FinishReason::kEos;
  nlohmann::json j = completion_json(kMeta, r, nullptr, &reply);
  const auto& choice = j["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_TRUE(choice["message"]["content"].is_null());
  EXPECT_EQ(choice["message"]["reasoning_content"], "thought");
  EXPECT_EQ(choice["message"]["tool_calls"][0],
            nlohmann::json::parse(R"({"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}})"));
  r.finish_reason = FinishReason::kLength;  // a cut reply says so, calls or not
  EXPECT_EQ(completion_json(kMeta, r, nullptr, &reply)["choices"][0]["finish_reason"], "length");
  ChatReply text{"hello", "", {}};
  r.finish_reason = FinishReason::kStop;
  j = completion_json(kMeta, r, nullptr, &text)["choices"][0];
  EXPECT_EQ(j["finish_reason"], "stop");
  EXPECT_EQ(j["message"]["content"], "hello");
  EXPECT_FALSE(j["message"].contains("tool_calls"));
  EXPECT_FALSE(j["message"].contains("reasoning_content"));
}

TEST(ChatReplyJson, DeltasAsOpenAIStreamsThem) {
  ChatReplyDelta d;
  d.reasoning_content = "r";
  d.content = "c";
  d.tool_calls = {{0, "call_1", "f", ""}, {0, "", "", R"({"a":1})"}};
  auto chunks = delta_chunks(kMeta, d, false, nlohmann::json::parse(R"({"content":[]})"));
  ASSERT_EQ(chunks.size(), 4u);
  EXPECT_EQ(chunks[0]["choices"][0]["delta"], nlohmann::json::parse(R"({"reasoning_content":"r"})"));
  EXPECT_EQ(chunks[0]["choices"][0]["logprobs"], nlohmann::json::parse(R"({"content":[]})"));
  EXPECT_TRUE(chunks[1]["choices"][0]["logprobs"].is_null());
  EXPECT_EQ(chunks[1]["choices"][0]["delta"], nlohmann::json::parse(R"({"content":"c"})"));
  EXPECT_EQ(chunks[2]["choices"][0]["delta"],
            nlohmann::json::parse(
                R"({"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]})"));
  EXPECT_EQ(chunks[3]["choices"][0]["delta"],
            nlohmann::json::parse(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"a\":1}"}}]})"));
  EXPECT_EQ(chunks[3]["object"], "chat.completion.chunk");
  EXPECT_TRUE(delta_chunks(kMeta, ChatReplyDelta{}, false, nullptr).empty());
  EXPECT_EQ(delta_chunks(kMeta, ChatReplyDelta{}, true, nlohmann::json::array()).size(), 1u);  // logprobs still go out
}

TEST(ChatReplyJson, StreamFinishSaysToolCalls) {
  StreamEncoder encoder(kMeta, false);
  GenerationResult r;
  r.finish_reason = FinishReason::kEos;
  ChatReply reply{"", "", {{"call_1", "f", "{}"}}};
  const std::string out = encoder.finish(r, &reply);
  EXPECT_NE(out.find(R"("finish_reason":"tool_calls")"), std::string::npos) << out;
  EXPECT_NE(encoder.finish(r).find(R"("finish_reason":"stop")"), std::string::npos);
}

}  // namespace
}  // namespace ogai::serve
