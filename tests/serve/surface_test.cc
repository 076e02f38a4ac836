// The server's surface pieces as units: API-key checks, CORS fields, request ids, unknown
// fields, the access line, the Responses API's request parsing, response object and events.
#include <gtest/gtest.h>

#include <algorithm>

#include "serve/ops/access_log.h"
#include "serve/common/api_request.h"
#include "serve/ops/auth.h"
#include "serve/ops/cors.h"
#include "serve/ops/request_id.h"
#include "serve/responses/responses_api.h"
#include "serve/responses/responses_store.h"
#include "serve/responses/responses_stream.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

http::Request request(std::string path, std::vector<http::Field> fields = {}, std::string method = "GET") {
  http::Request r;
  r.method = std::move(method);
  r.path = r.target = std::move(path);
  r.fields = std::move(fields);
  return r;
}

TEST(Auth, NoKeyConfiguredLetsEverythingPass) {
  EXPECT_FALSE(check_api_key(request("/v1/models"), {}, true));
}

TEST(Auth, NeedsTheBearerKeyExceptOnOpenProbes) {
  const std::vector<std::string> key = {"sk-1"};
  EXPECT_FALSE(check_api_key(request("/v1/models", {{"Authorization", "Bearer sk-1"}}), key, false));
  EXPECT_FALSE(check_api_key(request("/v1/models", {{"authorization", "bearer  sk-1 "}}), key, false));
  for (const char* bad : {"Bearer sk-2", "Bearer sk-1x", "Bearer sk-", "sk-1", "Basic c2stMQ==", ""}) {
    auto e = check_api_key(request("/v1/models", {{"Authorization", bad}}), key, false);
    ASSERT_TRUE(e) << bad;
    EXPECT_EQ(e->status, 401);
    EXPECT_EQ(e->code, "invalid_api_key");
    EXPECT_EQ(e->message.find("sk-1"), std::string::npos);
  }
  EXPECT_FALSE(check_api_key(request("/health"), key, false));
  EXPECT_FALSE(check_api_key(request("/ready"), key, false));
  EXPECT_FALSE(check_api_key(request("/metrics"), key, false));
  EXPECT_TRUE(check_api_key(request("/health"), key, true));
  EXPECT_TRUE(check_api_key(request("/healthz"), key, false));
}

TEST(Auth, SeveralKeysEachATenant) {
  const std::vector<std::string> keys = {"sk-a", "sk-b"};
  EXPECT_FALSE(check_api_key(request("/v1/models", {{"Authorization", "Bearer sk-a"}}), keys, false));
  EXPECT_FALSE(check_api_key(request("/v1/models", {{"x-api-key", "sk-b"}}), keys, false));
  EXPECT_TRUE(check_api_key(request("/v1/models", {{"Authorization", "Bearer sk-c"}}), keys, false));
  const std::string a = api_key_owner(request("/v1/responses", {{"Authorization", "Bearer sk-a"}}), keys);
  const std::string b = api_key_owner(request("/v1/responses", {{"x-api-key", "sk-b"}}), keys);
  EXPECT_FALSE(a.empty());
  EXPECT_FALSE(b.empty());
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find("sk-"), std::string::npos) << "the tag never carries the key";
  EXPECT_EQ(api_key_owner(request("/v1/responses", {{"Authorization", "Bearer sk-a"}}), {}), "");
  EXPECT_EQ(api_key_owner(request("/v1/responses"), keys), "");
}

TEST(Cors, AllowsListedOriginsOnly) {
  CorsPolicy p{{"http://a.test"}};
  EXPECT_TRUE(p.allows("http://a.test"));
  EXPECT_FALSE(p.allows("http://b.test"));
  EXPECT_FALSE(p.allows(""));
  EXPECT_TRUE(CorsPolicy{{"*"}}.allows("http://b.test"));
  EXPECT_FALSE(CorsPolicy{}.allows("http://a.test"));
  auto fields = cors_fields(p, request("/v1/models", {{"Origin", "http://a.test"}}));
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0], (http::Field{"Access-Control-Allow-Origin", "http://a.test"}));
  EXPECT_TRUE(cors_fields(p, request("/v1/models", {{"Origin", "http://b.test"}})).empty());
}

TEST(Cors, PreflightNamesMethodsAndTheAskedHeaders) {
  CorsPolicy p{{"*"}};
  http::Request pre = request("/v1/chat/completions", {{"Origin", "http://x"}, {"Access-Control-Request-Method", "POST"},
                                                       {"Access-Control-Request-Headers", "authorization, x-y"}},
                              "OPTIONS");
  ASSERT_TRUE(is_preflight(pre));
  EXPECT_FALSE(is_preflight(request("/v1/models", {}, "OPTIONS")));
  http::Response r = preflight_response(p, pre);
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.content_type.empty());
  EXPECT_NE(std::find(r.fields.begin(), r.fields.end(), http::Field{"Access-Control-Allow-Headers", "authorization, x-y"}),
            r.fields.end());
  EXPECT_TRUE(preflight_response(CorsPolicy{{"http://other"}}, pre).fields.empty());
}

TEST(RequestIds, EchoesUsableIdsAndGeneratesOthers) {
  RequestIds ids;
  EXPECT_EQ(ids.id_for("abc-123_x.y"), "abc-123_x.y");
  const std::string a = ids.id_for(""), b = ids.id_for("has space");
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(b.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_FALSE(usable_request_id(std::string(kMaxRequestIdLength + 1, 'a')));
  EXPECT_FALSE(usable_request_id("quote\""));
  EXPECT_TRUE(usable_request_id(std::string(kMaxRequestIdLength, 'a')));
}

TEST(UnknownFields, NamesTheFieldsNoPartOfTheServerReads) {
  const auto body = nlohmann::json::parse(
      R"({"model": "m", "messages": [], "tools": [], "tool_choice": "none", "chat_template_kwargs": {},
          "parallel_tool_calls": true, "zz": 1, "aa": 2})");
  EXPECT_EQ(unknown_fields(body, known_fields(Endpoint::kChat)), (std::vector<std::string>{"aa", "zz"}));
  EXPECT_EQ(unknown_fields(nlohmann::json::parse(R"({"echo": true, "messages": 1})"), known_fields(Endpoint::kCompletion)),
            (std::vector<std::string>{"messages"}));
  ApiError e = unknown_fields_error({"aa", "zz"});
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "aa");
  EXPECT_NE(e.message.find("aa, zz"), std::string::npos);
}

TEST(UnknownFields, TheParsersListThem) {
  ApiRequest r = parse_chat_request(R"({"model": "m", "messages": [{"role": "user", "content": "x"}], "foo": 1})");
  EXPECT_EQ(r.unknown_fields, (std::vector<std::string>{"foo"}));
  EXPECT_TRUE(parse_completion_request(R"({"model": "m", "prompt": "x", "user": "u"})").unknown_fields.empty());
}

TEST(ChatRendering, AddGenerationPromptAndContinueFinalMessage) {
  const std::string messages = R"("messages": [{"role": "user", "content": "x"}])";
  ApiRequest r = parse_chat_request(R"({"model": "m", )" + messages + "}");
  EXPECT_TRUE(r.add_generation_prompt);
  EXPECT_FALSE(r.continue_final_message);
  r = parse_chat_request(R"({"model": "m", "add_generation_prompt": false, )" + messages + "}");
  EXPECT_FALSE(r.add_generation_prompt);
  r = parse_chat_request(R"({"model": "m", "continue_final_message": true, )" + messages + "}");
  EXPECT_TRUE(r.continue_final_message);
  EXPECT_FALSE(r.add_generation_prompt);
  try {
    parse_chat_request(R"({"model": "m", "continue_final_message": true, "add_generation_prompt": true, )" + messages + "}");
    ADD_FAILURE() << "expected an ApiError";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.param, "continue_final_message");
  }
}

TEST(AccessLog, TextAndJsonLines) {
  AccessRecord r{"id-1", "127.0.0.1:5", "POST", "/v1/x?a=\"b\"", 11, 200, 42, 1.5};
  EXPECT_EQ(access_line(r, false), "ogai [info] access: 127.0.0.1:5 \"POST /v1/x?a=\"b\" HTTP/1.1\" 200 42B 1.5ms id=id-1");
  auto j = nlohmann::json::parse(access_line(r, true));
  EXPECT_EQ(j["message"], "access");
  EXPECT_EQ(j["request_id"], "id-1");
  EXPECT_EQ(j["path"], "/v1/x?a=\"b\"");
  EXPECT_EQ(j["status"], 200);
  EXPECT_EQ(j["bytes"], 42);
}

TEST(Responses, ParsesInputInstructionsAndOptions) {
  ResponsesRequest p = parse_responses_request(R"({"model": "m", "instructions": "be brief", "max_output_tokens": 7,
      "temperature": 0.5, "stream": true, "store": false, "text": {"format": {"type": "text"}},
      "input": [{"role": "developer", "content": "d"}, {"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": "a"}, {"type": "input_text", "text": "b"}]}], "zz": 1})");
  const ApiRequest& r = p.request;
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[0].content, "be brief");
  EXPECT_EQ(r.messages[1].role, "system");
  EXPECT_EQ(r.messages[2].content, "a\nb");
  EXPECT_EQ(r.options.max_new_tokens, 7);
  EXPECT_FLOAT_EQ(*r.options.sampling.temperature, 0.5f);
  EXPECT_TRUE(r.stream);
  EXPECT_EQ(r.unknown_fields, (std::vector<std::string>{"zz"}));
  EXPECT_EQ(p.state().echo["instructions"], "be brief");
  EXPECT_FALSE(p.state().store);
  ResponsesRequest s = parse_responses_request(R"({"model": "m", "input": "hi"})");
  ASSERT_EQ(s.request.messages.size(), 1u);
  EXPECT_EQ(s.request.messages[0].role, "user");
}

TEST(Responses, TheObjectAndTheEventsInOrder) {
  ResponsesMeta meta{"resp_1", "msg_1", 5, "m", {{"instructions", nullptr}}};
  GenerationResult result;
  result.finish_reason = FinishReason::kLength;
  result.prompt_ids = {1, 2};
  result.ids = {3};
  nlohmann::json whole = responses_json(meta, &result, ChatReply{"hey", "", {}});
  EXPECT_EQ(whole["status"], "incomplete");
  EXPECT_EQ(whole["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(whole["output"][0]["content"][0]["text"], "hey");
  EXPECT_EQ(whole["usage"]["total_tokens"], 3);
  ResponsesEncoder enc(meta);
  std::string out = enc.start();  // one call a statement: the encoder numbers its events
  out += enc.text("he");
  out += enc.text("");
  out += enc.text("y");
  out += enc.finish(result);
  EXPECT_NE(out.find(R"("sequence_number":0,"type":"response.created")"), std::string::npos);
  std::vector<std::string> types;
  for (std::size_t at = out.find("event: "); at != std::string::npos; at = out.find("event: ", at + 1))
    types.push_back(out.substr(at + 7, out.find('\n', at) - at - 7));
  EXPECT_EQ(types, (std::vector<std::string>{"response.created", "response.in_progress", "response.output_item.added",
                                             "response.content_part.added", "response.output_text.delta",
                                             "response.output_text.delta", "response.output_text.done",
                                             "response.content_part.done", "response.output_item.done",
                                             "response.incomplete"}));
  EXPECT_NE(out.find(R"("sequence_number":9)"), std::string::npos);
  EXPECT_NE(out.find(R"("text":"hey")"), std::string::npos);
  EXPECT_EQ(out.find("[DONE]"), std::string::npos);
}

TEST(Responses, StoreIsBoundedLeastRecentlyUsedFirstOut) {
  ResponsesStore store(2, 1000);
  store.put("a", nlohmann::json::array({{{"role", "user"}, {"content", "1"}}}));
  store.put("b", nlohmann::json::array());
  ASSERT_TRUE(store.get("a"));  // a is now the most recently used
  store.put("c", nlohmann::json::array());
  EXPECT_FALSE(store.get("b"));
  EXPECT_EQ((*store.get("a"))[0]["content"], "1");
  EXPECT_TRUE(store.get("c"));
  EXPECT_EQ(store.size(), 2u);
  EXPECT_FALSE(store.response("c"));  // put without a response object
  store.put("d", nlohmann::json::array(), {{"id", "d"}});
  EXPECT_EQ((*store.response("d"))["id"], "d");
  store.put("big", nlohmann::json::array({std::string(2000, 'x')}));  // over the byte budget: not kept
  EXPECT_FALSE(store.get("big"));
  ResponsesStore bytes(10, 60);
  bytes.put("x", nlohmann::json::array({std::string(30, 'x')}));
  bytes.put("y", nlohmann::json::array({std::string(30, 'y')}));
  EXPECT_FALSE(bytes.get("x"));
  EXPECT_TRUE(bytes.get("y"));
  EXPECT_LE(bytes.bytes(), 60u);
}

TEST(Responses, StoreCountsTheTextItHolds) {
  ResponsesStore store(100, 1 << 20);
  const nlohmann::json conversation = nlohmann::json::array({{{"role", "user"}, {"content", std::string(1000, 'q')}}});
  store.put("a", conversation, {{"id", "a"}});
  EXPECT_GE(store.bytes(), conversation.dump().size());
  EXPECT_LE(store.bytes(), conversation.dump().size() + 100);
  EXPECT_EQ(*store.get("a"), conversation);
}

TEST(Responses, StoredEntriesReadableOnlyByTheirOwner) {
  ResponsesStore store;
  store.put("resp_1", nlohmann::json::array(), {{"id", "resp_1"}}, "key-0");
  EXPECT_TRUE(store.get("resp_1", "key-0"));
  EXPECT_TRUE(store.response("resp_1", "key-0"));
  EXPECT_FALSE(store.get("resp_1", "key-1"));
  EXPECT_FALSE(store.response("resp_1", "key-1"));
  EXPECT_FALSE(store.get("resp_1"));
}

TEST(Responses, PreviousResponseIdPrependsTheStoredConversation) {
  const nlohmann::json stored = nlohmann::json::array({{{"role", "user"}, {"content", "q"}},
                                                       {{"role", "assistant"}, {"content", "a"}}});
  auto lookup = [&](const std::string& id) -> std::optional<nlohmann::json> {
    if (id == "resp_1") return stored;
    return std::nullopt;
  };
  ResponsesRequest p = parse_responses_request(
      R"({"model": "m", "instructions": "i", "previous_response_id": "resp_1", "input": "next"})", {}, lookup);
  ASSERT_EQ(p.request.messages.size(), 4u);
  EXPECT_EQ(p.request.messages[0].content, "i");
  EXPECT_EQ(p.request.messages[1].content, "q");
  EXPECT_EQ(p.request.messages[3].content, "next");
  EXPECT_EQ(p.state().conversation.size(), 3u);  // without the instructions
  try {
    parse_responses_request(R"({"model": "m", "previous_response_id": "resp_2", "input": "x"})", {}, lookup);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 404);
    EXPECT_EQ(e.param, "previous_response_id");
  }
}

}  // namespace
}  // namespace ogai::serve
