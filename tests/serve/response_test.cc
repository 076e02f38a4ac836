// OpenAI response bodies, streaming chunks and error bodies.
#include <gtest/gtest.h>

#include "serve/openai/api_response.h"
#include "serve/openai/stream_encoder.h"

namespace ogai::serve {
namespace {

GenerationResult result(std::string text, FinishReason reason, std::size_t prompt, std::size_t generated) {
  GenerationResult r;
  r.text = std::move(text);
  r.finish_reason = reason;
  r.prompt_ids.assign(prompt, 1);
  r.ids.assign(generated, 7);
  return r;
}

// Splits SSE text into the JSON payloads of its `data:` events ("[DONE]" kept as a string).
std::vector<std::string> events(const std::string& sse) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < sse.size()) {
    auto end = sse.find("\n\n", pos);
    EXPECT_NE(end, std::string::npos) << "unterminated event";
    std::string event = sse.substr(pos, end - pos);
    EXPECT_EQ(event.rfind("data: ", 0), 0u) << event;
    out.push_back(event.substr(6));
    pos = end + 2;
  }
  return out;
}

TEST(Response, FinishReasonsMapToOpenAI) {
  EXPECT_STREQ(openai_finish_reason(FinishReason::kEos), "stop");
  EXPECT_STREQ(openai_finish_reason(FinishReason::kStop), "stop");
  EXPECT_STREQ(openai_finish_reason(FinishReason::kLength), "length");
}

TEST(Response, ChatCompletion) {
  ResponseMeta meta{Endpoint::kChat, "chatcmpl-1", 1700000000, "stories"};
  auto j = completion_json(meta, result("Hello", FinishReason::kEos, 5, 3));
  EXPECT_EQ(j["id"], "chatcmpl-1");
  EXPECT_EQ(j["object"], "chat.completion");
  EXPECT_EQ(j["created"], 1700000000);
  EXPECT_EQ(j["model"], "stories");
  ASSERT_EQ(j["choices"].size(), 1u);
  EXPECT_EQ(j["choices"][0]["index"], 0);
  EXPECT_EQ(j["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(j["choices"][0]["message"]["content"], "Hello");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(j["usage"], nlohmann::json({{"prompt_tokens", 5}, {"completion_tokens", 3}, {"total_tokens", 8}}));
}

TEST(Response, TextCompletion) {
  ResponseMeta meta{Endpoint::kCompletion, "cmpl-1", 1, "m"};
  auto j = completion_json(meta, result(", there", FinishReason::kLength, 4, 60));
  EXPECT_EQ(j["object"], "text_completion");
  EXPECT_EQ(j["choices"][0]["text"], ", there");
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(j["usage"]["total_tokens"], 64);
}

TEST(Response, InvalidUtf8IsReplacedNotThrown) {
  ResponseMeta meta{Endpoint::kCompletion, "cmpl-1", 1, "m"};
  std::string text = to_text(completion_json(meta, result("a\xff", FinishReason::kLength, 1, 1)));
  EXPECT_NE(text.find("a\xef\xbf\xbd"), std::string::npos);
}

TEST(StreamEncoder, ChatStreamOrder) {
  StreamEncoder enc({Endpoint::kChat, "chatcmpl-9", 2, "m"}, /*include_usage=*/true);
  auto e = events(enc.start() + enc.text("Hi") + enc.text("") + enc.text(" there") +
                  enc.finish(result("Hi there", FinishReason::kStop, 4, 2)) + enc.end(4, 2));
  ASSERT_EQ(e.size(), 6u);
  auto role = nlohmann::json::parse(e[0]);
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["id"], "chatcmpl-9");
  EXPECT_EQ(role["choices"][0]["delta"], nlohmann::json({{"role", "assistant"}, {"content", ""}}));
  EXPECT_TRUE(role["choices"][0]["finish_reason"].is_null());
  EXPECT_TRUE(role.contains("usage") && role["usage"].is_null());
  EXPECT_EQ(nlohmann::json::parse(e[1])["choices"][0]["delta"]["content"], "Hi");
  EXPECT_EQ(nlohmann::json::parse(e[2])["choices"][0]["delta"]["content"], " there");
  auto last = nlohmann::json::parse(e[3]);
  EXPECT_EQ(last["choices"][0]["delta"], nlohmann::json::object());
  EXPECT_EQ(last["choices"][0]["finish_reason"], "stop");
  auto usage = nlohmann::json::parse(e[4]);
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"]["completion_tokens"], 2);
  EXPECT_EQ(e[5], "[DONE]");
}

TEST(StreamEncoder, CompletionStreamWithoutUsage) {
  StreamEncoder enc({Endpoint::kCompletion, "cmpl-9", 2, "m"}, /*include_usage=*/false);
  EXPECT_EQ(enc.start(), "");
  auto e = events(enc.text("Once") + enc.finish(result("Once", FinishReason::kLength, 4, 1)) + enc.end(4, 1));
  ASSERT_EQ(e.size(), 3u);
  auto chunk = nlohmann::json::parse(e[0]);
  EXPECT_EQ(chunk["object"], "text_completion");
  EXPECT_EQ(chunk["choices"][0]["text"], "Once");
  EXPECT_FALSE(chunk.contains("usage"));
  EXPECT_EQ(nlohmann::json::parse(e[1])["choices"][0]["finish_reason"], "length");
  EXPECT_EQ(e[2], "[DONE]");
}

TEST(StreamEncoder, ChoiceIndexOnEveryChunkAndOneEnd) {
  StreamEncoder enc({Endpoint::kChat, "chatcmpl-9", 2, "m"}, /*include_usage=*/true, /*index=*/2);
  auto e = events(enc.start() + enc.text("Hi") + enc.delta({" there", "", {}}) +
                  enc.finish(result("Hi there", FinishReason::kLength, 4, 2)));
  ASSERT_EQ(e.size(), 4u);  // the choice's events only: no usage, no [DONE]
  for (const auto& event : e) EXPECT_EQ(nlohmann::json::parse(event)["choices"][0]["index"], 2) << event;
  EXPECT_EQ(nlohmann::json::parse(e[3])["choices"][0]["finish_reason"], "length");
  auto end = events(enc.end(4, 7));
  ASSERT_EQ(end.size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(end[0])["usage"]["completion_tokens"], 7);
  EXPECT_EQ(end[1], "[DONE]");
  EXPECT_EQ(StreamEncoder({Endpoint::kCompletion, "c", 2, "m"}, false, 1).end(4, 7), "data: [DONE]\n\n");
}

TEST(StreamEncoder, ErrorEvent) {
  StreamEncoder enc({Endpoint::kChat, "c", 2, "m"}, false);
  auto e = events(enc.error(shutting_down()));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(e[0])["error"]["code"], "shutting_down");
}

TEST(ApiErrorTest, BodyShape) {
  auto j = error_json(invalid_request("temperature", "too hot"));
  EXPECT_EQ(j, nlohmann::json::parse(
                   R"({"error":{"message":"too hot","type":"invalid_request_error","param":"temperature","code":null}})"));
  EXPECT_TRUE(error_json(internal_error("x"))["error"]["param"].is_null());
}

TEST(ApiErrorTest, EngineErrorsMapToRequestFields) {
  auto e = from_engine_error(Error(ErrorCode::kInvalidArgument, "request.temperature", "-1 is outside"), Endpoint::kChat);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "temperature");
  EXPECT_EQ(e.message, "temperature: -1 is outside");
  EXPECT_EQ(from_engine_error(Error(ErrorCode::kInvalidArgument, "request.logit_bias[3]", "x"), Endpoint::kChat).param,
            "logit_bias");
  EXPECT_EQ(from_engine_error(Error(ErrorCode::kInvalidArgument, "max_new_tokens", "x"), Endpoint::kChat).param,
            "max_tokens");
  EXPECT_EQ(from_engine_error(Error(ErrorCode::kInvalidArgument, "prompt", "x"), Endpoint::kChat).param, "messages");
  EXPECT_EQ(from_engine_error(Error(ErrorCode::kInvalidArgument, "prompt", "x"), Endpoint::kCompletion).param, "prompt");
  EXPECT_EQ(from_engine_error(Error(ErrorCode::kInvalidArgument, "stop[0]", "x"), Endpoint::kCompletion).param, "stop");
  auto runtime = from_engine_error(Error(ErrorCode::kRuntime, "session", "boom"), Endpoint::kChat);
  EXPECT_EQ(runtime.status, 500);
  EXPECT_EQ(runtime.type, "server_error");
}

// Issue 12 finding 12: a client never sees the server's file system (package paths, sources).
TEST(ApiErrorTest, MessagesCarryNoAbsolutePaths) {
  auto no_chat = from_engine_error(Error(ErrorCode::kInvalidArgument, "/srv/models/pkg", "the package has no chat template"),
                                   Endpoint::kChat);
  EXPECT_EQ(no_chat.status, 400);
  EXPECT_EQ(no_chat.param, "");
  EXPECT_EQ(no_chat.message, "pkg: the package has no chat template");
  auto syntax = from_engine_error(Error(ErrorCode::kParse, "/srv/models/pkg/chat_template.jinja:1:7", "unexpected '}}'"),
                                  Endpoint::kChat);
  EXPECT_EQ(syntax.message, "chat_template.jinja:1:7: unexpected '}}'");
  auto runtime = from_engine_error(
      Error(ErrorCode::kRuntime, "/srv/models/pkg/model.onnx", "ONNX Runtime: failed in /onnxruntime_src/core/x.cc:12 ('/tmp/a b')"),
      Endpoint::kCompletion);
  EXPECT_EQ(runtime.status, 500);
  EXPECT_EQ(runtime.message, "model.onnx: ONNX Runtime: failed in x.cc:12 ('a b')");
  EXPECT_EQ(internal_error("cannot open /home/me/.cache/x.bin").message, "cannot open x.bin");
  EXPECT_EQ(internal_error("see http://host/path and a/b/c").message, "see http://host/path and a/b/c");
}

}  // namespace
}  // namespace ogai::serve
