// Parsing OpenAI request bodies into ApiRequest: every field, and every refusal names its field.
#include <gtest/gtest.h>

#include <cmath>

#include "serve/common/api_request.h"
#include "serve/common/response_format.h"

namespace ogai::serve {
namespace {

// Runs `parse` and returns the ApiError it throws (fails the test if it does not throw).
template <typename F>
ApiError error_of(F parse) {
  try {
    parse();
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an ApiError";
  return {};
}

ApiError chat_error(const std::string& body) { return error_of([&] { parse_chat_request(body); }); }
ApiError completion_error(const std::string& body) { return error_of([&] { parse_completion_request(body); }); }

TEST(ParseChat, ReadsMessagesAndEveryOption) {
  ApiRequest r = parse_chat_request(R"({
    "model": "m", "messages": [{"role": "system", "content": "be brief"},
                               {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
                               {"role": "assistant", "content": null},
                               {"role": "developer", "content": "dev"}],
    "max_completion_tokens": 7, "max_tokens": 99, "temperature": 0.5, "top_p": 0.9, "top_k": 40, "min_p": 0.05,
    "typical_p": 0.8, "repetition_penalty": 1.1, "frequency_penalty": 0.25, "presence_penalty": -0.5, "seed": 42,
    "stop": ["x", "yz"], "logit_bias": {"5": -100, "17": 2.5}, "n": 1, "stream": true,
    "stream_options": {"include_usage": true}, "ignore_eos": true, "user": "ignored"})");
  EXPECT_EQ(r.endpoint, Endpoint::kChat);
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[0].role, "system");
  EXPECT_EQ(r.messages[1].content, "a\nb");
  EXPECT_EQ(r.messages[2].role, "assistant");
  EXPECT_EQ(r.messages[2].content, "");
  EXPECT_EQ(r.messages[3].role, "system");  // developer -> system
  const auto& o = r.options;
  EXPECT_EQ(o.max_new_tokens, 7);  // max_completion_tokens wins over max_tokens
  EXPECT_FLOAT_EQ(*o.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(*o.sampling.top_p, 0.9f);
  EXPECT_EQ(o.sampling.top_k, 40);
  EXPECT_FLOAT_EQ(*o.sampling.min_p, 0.05f);
  EXPECT_FLOAT_EQ(*o.sampling.typical_p, 0.8f);
  EXPECT_FLOAT_EQ(*o.sampling.repetition_penalty, 1.1f);
  EXPECT_FLOAT_EQ(*o.sampling.frequency_penalty, 0.25f);
  EXPECT_FLOAT_EQ(*o.sampling.presence_penalty, -0.5f);
  EXPECT_EQ(o.sampling.seed, 42u);
  EXPECT_EQ(o.stop, (std::vector<std::string>{"x", "yz"}));
  EXPECT_EQ(o.sampling.logit_bias, (std::map<std::int32_t, float>{{5, -100.0f}, {17, 2.5f}}));
  EXPECT_TRUE(o.ignore_eos);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
}

TEST(ParseChat, NullAndAbsentFieldsAreUnset) {
  ApiRequest r = parse_chat_request(
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":null,"stop":null,"max_tokens":null})");
  EXPECT_FALSE(r.options.max_new_tokens);
  EXPECT_FALSE(r.options.sampling.temperature);
  EXPECT_FALSE(r.options.sampling.seed);
  EXPECT_TRUE(r.options.stop.empty());
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.include_usage);
}

TEST(ParseChat, StopStringAndMaxTokens) {
  ApiRequest r = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"stop":"\n","max_tokens":3})");
  EXPECT_EQ(r.options.stop, std::vector<std::string>{"\n"});
  EXPECT_EQ(r.options.max_new_tokens, 3);
}

TEST(ParseChat, NegativeSeedWraps) {
  ApiRequest r = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"hi"}],"seed":-1})");
  EXPECT_EQ(r.options.sampling.seed, ~std::uint64_t{0});
}

TEST(ParseChat, HugeNumbersSaturate) {
  ApiRequest r = parse_chat_request(
      R"({"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":1e300,"logit_bias":{"3":-1e300}})");
  EXPECT_TRUE(std::isinf(*r.options.sampling.temperature) && *r.options.sampling.temperature > 0);
  EXPECT_TRUE(std::isinf(r.options.sampling.logit_bias.at(3)) && r.options.sampling.logit_bias.at(3) < 0);
}

TEST(ParseChat, DeeplyNestedValuesAreRefusedWithoutRecursing) {
  const std::size_t depth = 200'000;  // dumping this recursively overflows an 8 MiB stack
  std::string body = R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":)";
  body += std::string(depth, '[') + std::string(depth, ']') + "}";
  ApiError e = chat_error(body);
  EXPECT_EQ(e.param, "temperature");
  EXPECT_NE(e.message.find("an array of 1 items"), std::string::npos) << e.message;
}

TEST(ParseChat, MalformedBodies) {
  EXPECT_EQ(chat_error("{not json").code, "invalid_json");
  EXPECT_NE(chat_error(R"({"model": "m",})").message.find("line 1, column 15"), std::string::npos)
      << chat_error(R"({"model": "m",})").message;
  EXPECT_NE(chat_error("{\"model\": \"\xff\"}").message.find("UTF-8"), std::string::npos);
  EXPECT_EQ(chat_error("[1,2]").code, "invalid_json");
  EXPECT_EQ(chat_error("").status, 400);
}

TEST(ParseChat, RequiredFields) {
  EXPECT_EQ(chat_error(R"({"messages":[{"role":"user","content":"x"}]})").param, "model");
  EXPECT_EQ(chat_error(R"({"model":"m"})").param, "messages");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[]})").param, "messages");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"content":"x"}]})").param, "messages[0].role");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"user"}]})").param, "messages[0].content");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"wizard","content":"x"}]})").param, "messages[0].role");
}

TEST(ParseChat, WrongTypesNameTheField) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  for (auto [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"temperature", "\"hot\""}, {"top_p", "true"}, {"top_k", "1.5"}, {"max_tokens", "\"10\""},
           {"seed", "[1]"}, {"stop", "5"}, {"stream", "1"}, {"logit_bias", "[1]"}, {"n", "\"1\""},
           {"stream_options", "true"}}) {
    ApiError e = chat_error(head + "\"" + field + "\":" + value + "}");
    EXPECT_EQ(e.status, 400) << field;
    EXPECT_EQ(e.param, field) << field;
    EXPECT_NE(e.message.find(field), std::string::npos) << e.message;
  }
  EXPECT_EQ(chat_error(head + R"("model":5})").param, "model");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":"hi"})").param, "messages");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"user","content":5}]})").param, "messages[0].content");
  EXPECT_EQ(chat_error(head + R"("stream_options":{"include_usage":"yes"}})").param, "stream_options.include_usage");
  EXPECT_EQ(chat_error(head + R"("logit_bias":{"abc":1}})").param, "logit_bias");
  EXPECT_EQ(chat_error(head + R"("logit_bias":{"5":"big"}})").param, "logit_bias");
  EXPECT_EQ(chat_error(head + R"("stop":["a",3]})").param, "stop");
  EXPECT_EQ(chat_error(head + R"("max_tokens":0})").param, "max_tokens");
  EXPECT_EQ(chat_error(head + R"("max_completion_tokens":-3})").param, "max_completion_tokens");
  EXPECT_EQ(chat_error(head + R"("top_k":99999999999})").param, "top_k");
}

TEST(ParseChat, UnsupportedFeaturesAreRefusedByName) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  const ApiRequest streamed = parse_chat_request(head + R"("n":2,"stream":true,"stream_options":{"include_usage":true}})");
  EXPECT_EQ(streamed.n, 2);
  EXPECT_TRUE(streamed.stream && streamed.include_usage);
  EXPECT_EQ(chat_error(head + R"("n":0})").param, "n");
  EXPECT_EQ(chat_error(head + R"("n":1000})").param, "n");
  EXPECT_EQ(parse_chat_request(head + R"("n":3})").n, 3);
  EXPECT_EQ(parse_chat_request(head + R"("n":1,"stream":true})").n, 1);
  EXPECT_EQ(chat_error(head + R"("functions":[{"name":"f"}]})").param, "functions");
  EXPECT_EQ(chat_error(head + R"("functions":[{"name":"f"}]})").code, "unsupported");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]})")
                .param,
            "messages[0].content[0].image_url.url");  // not a data URL (request_model_test.cc: media parts)
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{}}]}]})").code,
            "unsupported");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"function","content":"x","name":"f"}]})").code,
            "unsupported");
  // Harmless defaults are accepted.
  EXPECT_NO_THROW(parse_chat_request(head + R"("n":1,"tools":[],"logprobs":false,"response_format":{"type":"text"}})"));
}

TEST(ParseChat, ToolsAndToolMessages) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"x"},)"
                           R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",)"
                           R"("function":{"name":"f","arguments":"{\"a\":1}"}}]},)"
                           R"({"role":"tool","tool_call_id":"c1","content":"42"}],)";
  ApiRequest r = parse_chat_request(head + R"("tools":[{"type":"function","function":{"name":"f","description":"d",)"
                                           R"("parameters":{"type":"object"}}}],"tool_choice":{"type":"function",)"
                                           R"("function":{"name":"f"}},"parallel_tool_calls":false,)"
                                           R"("chat_template_kwargs":{"enable_thinking":false},"tool_call_format":"mistral"})");
  ASSERT_EQ(r.messages.size(), 3u);
  ASSERT_EQ(r.messages[1].tool_calls.size(), 1u);
  EXPECT_EQ(r.messages[1].tool_calls[0].id, "c1");
  EXPECT_EQ(r.messages[1].tool_calls[0].arguments, R"({"a":1})");
  EXPECT_EQ(r.messages[2].role, "tool");
  EXPECT_EQ(r.messages[2].tool_call_id, "c1");
  ASSERT_EQ(r.chat.tools.size(), 1u);
  EXPECT_EQ(r.chat.tools[0].description, "d");
  EXPECT_EQ(r.chat.tools[0].parameters, R"({"type":"object"})");
  EXPECT_EQ(r.chat.tool_choice.mode, ToolChoice::Mode::kFunction);
  EXPECT_EQ(r.chat.tool_choice.function, "f");
  EXPECT_FALSE(r.chat.parallel_tool_calls);
  EXPECT_EQ(r.chat.template_kwargs.at("enable_thinking"), "false");
  EXPECT_EQ(r.chat.tool_call_format, ToolCallFormat::kMistral);
  const std::string user = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  EXPECT_EQ(chat_error(user + R"("tools":[{"type":"function"}]})").param, "tools[0].function");
  EXPECT_EQ(chat_error(user + R"("tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required",)"
                              R"("response_format":{"type":"json_object"}})").param,
            "tool_choice");
  EXPECT_EQ(chat_error(R"({"model":"m","messages":[{"role":"user","content":"x","tool_calls":[]}]})").param,
            "messages[0].tool_calls");
}

TEST(ParseChat, Logprobs) {
  const std::string head = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  EXPECT_FALSE(parse_chat_request(head + R"("logprobs":false})").options.logprobs);
  EXPECT_FALSE(parse_chat_request(head + R"("logprobs":null})").options.logprobs);
  EXPECT_EQ(parse_chat_request(head + R"("logprobs":true})").options.logprobs, 0);
  EXPECT_EQ(parse_chat_request(head + R"("logprobs":true,"top_logprobs":20})").options.logprobs, 20);
  EXPECT_EQ(parse_chat_request(head + R"("logprobs":true,"top_logprobs":0})").options.logprobs, 0);
  // top_logprobs needs logprobs: true, and 0..20.
  EXPECT_EQ(chat_error(head + R"("top_logprobs":3})").param, "top_logprobs");
  EXPECT_EQ(chat_error(head + R"("logprobs":false,"top_logprobs":3})").param, "top_logprobs");
  EXPECT_EQ(chat_error(head + R"("logprobs":true,"top_logprobs":21})").param, "top_logprobs");
  EXPECT_EQ(chat_error(head + R"("logprobs":true,"top_logprobs":-1})").param, "top_logprobs");
  EXPECT_EQ(chat_error(head + R"("logprobs":"yes"})").param, "logprobs");
}

TEST(ParseCompletion, Logprobs) {
  EXPECT_FALSE(parse_completion_request(R"({"model":"m","prompt":"a"})").options.logprobs);
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","logprobs":0})").options.logprobs, 0);
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","logprobs":5})").options.logprobs, 5);
  EXPECT_FALSE(parse_completion_request(R"({"model":"m","prompt":"a","logprobs":null})").options.logprobs);
}

TEST(ParseCompletion, PromptForms) {
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"Once"})").prompt_text, "Once");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":["Once"]})").prompt_text, "Once");
  auto ids = parse_completion_request(R"({"model":"m","prompt":[1,403,407]})");
  EXPECT_FALSE(ids.prompt_text);
  EXPECT_EQ(ids.prompt_ids, (std::vector<std::int32_t>{1, 403, 407}));
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":[[1,2]]})").prompt_ids, (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"x"})").endpoint, Endpoint::kCompletion);
}

TEST(ParseCompletion, Echo) {
  auto scored = parse_completion_request(R"({"model":"m","prompt":"a","echo":true,"logprobs":2,"max_tokens":0})");
  EXPECT_TRUE(scored.echo);
  EXPECT_TRUE(scored.options.prompt_logprobs);
  EXPECT_EQ(scored.options.max_new_tokens, 0);
  auto text_only = parse_completion_request(R"({"model":"m","prompt":"a","echo":true})");
  EXPECT_TRUE(text_only.echo);
  EXPECT_FALSE(text_only.options.prompt_logprobs);  // no logprobs asked: nothing to score
  EXPECT_FALSE(parse_completion_request(R"({"model":"m","prompt":"a","logprobs":1})").options.prompt_logprobs);
}

TEST(ParseCompletion, SeveralPromptsBestOfSuffix) {
  auto r = parse_completion_request(R"({"model":"m","prompt":["a",[5,6],"c"],"n":2,"best_of":3})");
  EXPECT_EQ(r.prompt_text, "a");
  ASSERT_EQ(r.more_prompts.size(), 2u);
  EXPECT_EQ(r.more_prompts[0].ids, (std::vector<std::int32_t>{5, 6}));
  EXPECT_FALSE(r.more_prompts[0].text.has_value());
  EXPECT_EQ(r.more_prompts[1].text, "c");
  EXPECT_EQ(r.n, 2);
  EXPECT_EQ(r.best_of, 3);
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","best_of":1,"stream":true})").best_of, 1);
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","suffix":null})").prompt_text, "a");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","suffix":""})").prompt_text, "a");
  std::string many = R"({"model":"m","prompt":[)";
  for (int i = 0; i <= kMaxPrompts; ++i) many += i ? ",\"x\"" : "\"x\"";
  EXPECT_EQ(completion_error(many + "]}").param, "prompt");
}

TEST(ParseCompletion, Refusals) {
  EXPECT_EQ(completion_error(R"({"model":"m"})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":5})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":[]})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":[1,-2]})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":["a",[]]})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":["a",3]})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":[["x"]]})").param, "prompt");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","echo":true,"stream":true})").param, "echo");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","max_tokens":0})").param, "max_tokens");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","echo":true,"max_tokens":-1})").param, "max_tokens");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","best_of":2,"n":3})").param, "best_of");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","best_of":2,"stream":true})").param, "best_of");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","best_of":0})").param, "best_of");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","best_of":129})").param, "best_of");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","suffix":"end"})").param, "suffix");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","suffix":3})").param, "suffix");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","logprobs":6})").param, "logprobs");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","logprobs":-1})").param, "logprobs");
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","logprobs":true})").param, "logprobs");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","n":3,"echo":true})").n, 3);
  EXPECT_EQ(completion_error(R"({"model":"m","prompt":"a","n":3,"echo":true,"stream":true})").param, "echo");
  EXPECT_EQ(parse_completion_request(R"({"model":"m","prompt":"a","n":3})").n, 3);
}

}  // namespace
}  // namespace ogai::serve

namespace ogai::serve {
namespace {

TEST(ParseResponseFormat, JsonObjectSchemaRegexGrammarOnBothEndpoints) {
  const std::string chat = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  const std::string completion = R"({"model":"m","prompt":"x",)";
  EXPECT_FALSE(parse_chat_request(chat + R"("response_format":{"type":"text"}})").options.response_format);
  auto object = parse_chat_request(chat + R"("response_format":{"type":"json_object"}})").options.response_format;
  ASSERT_TRUE(object);
  EXPECT_EQ(object->kind, ResponseFormat::Kind::kJsonObject);
  auto schema = parse_completion_request(
      completion + R"("response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,
      "schema":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}}}})").options.response_format;
  ASSERT_TRUE(schema);
  EXPECT_EQ(schema->kind, ResponseFormat::Kind::kJsonSchema);
  EXPECT_TRUE(schema->strict);
  EXPECT_NE(schema->text.find("\"required\""), std::string::npos);
  auto regex = parse_chat_request(chat + R"("response_format":{"type":"regex","regex":"a+"}})").options.response_format;
  ASSERT_TRUE(regex);
  EXPECT_EQ(regex->text, "a+");
  auto grammar = parse_chat_request(chat + R"("response_format":{"type":"grammar","grammar":"root ::= \"x\""}})")
                     .options.response_format;
  ASSERT_TRUE(grammar);
  EXPECT_EQ(grammar->kind, ResponseFormat::Kind::kGrammar);
}

ApiError parse_error(const std::string& body) {
  try {
    ApiRequest r = parse_chat_request(body);
    if (r.options.response_format) check_response_format_field(*r.options.response_format);
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << body;
  return {};
}

TEST(ParseResponseFormat, UnenforceableSchemasAre400NamingTheKeyword) {
  const std::string chat = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  ApiError e = parse_error(chat + R"("response_format":{"type":"json_schema","json_schema":{"name":"p",
      "schema":{"type":"object","properties":{"a":{"type":"string","not":{"const":"x"}}}}}}})");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "unsupported");
  EXPECT_EQ(e.param, "response_format");
  EXPECT_NE(e.message.find("'not'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("#/properties/a/not"), std::string::npos) << e.message;
  e = parse_error(chat + R"("response_format":{"type":"json_schema","json_schema":{"name":"p"}}})");
  EXPECT_EQ(e.param, "response_format.json_schema.schema");
  e = parse_error(chat + R"("response_format":{"type":"yaml"}})");
  EXPECT_EQ(e.param, "response_format.type");
  e = parse_error(chat + R"("response_format":{"type":"regex","regex":"(a"}})");
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "");
  EXPECT_NE(e.message.find("missing ')'"), std::string::npos);
  e = parse_error(chat + R"("response_format":{"type":"grammar","grammar":"root ::= root \"a\""}})");
  EXPECT_NE(e.message.find("no terminal"), std::string::npos) << e.message;
}

TEST(ParseResponseFormat, UnenforcedFormatsAndWhitespaceAreRead) {
  const std::string chat = R"({"model":"m","messages":[{"role":"user","content":"x"}],)";
  ApiRequest r = parse_chat_request(chat + R"("response_format":{"type":"json_schema","whitespace":4,
      "json_schema":{"name":"p","schema":{"properties":{"u":{"format":"uri-template"},"d":{"format":"date"},
      "l":{"type":"array","items":{"format":"x-\u00e9vil\n"}}}}}}})");
  ASSERT_TRUE(r.options.response_format);
  EXPECT_EQ(r.options.response_format->whitespace, 4);
  ASSERT_EQ(r.unenforced.size(), 2u);
  const bool first = r.unenforced[0].value == "uri-template";
  const UnenforcedKeyword& u = r.unenforced[first ? 0 : 1];
  EXPECT_EQ(u.value, "uri-template");
  EXPECT_EQ(u.pointer, "#/properties/u/format");
  EXPECT_EQ(r.unenforced[first ? 1 : 0].pointer, "#/properties/l/items/format");
  const std::string header = unenforced_header(r.unenforced);
  EXPECT_NE(header.find("format 'uri-template' at '#/properties/u/format'"), std::string::npos) << header;
  EXPECT_NE(header.find("format 'x-??vil?' at '#/properties/l/items/format'"), std::string::npos) << header;
  for (char c : header) EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << header;  // safe as a header value
  EXPECT_TRUE(parse_chat_request(chat + R"("response_format":{"type":"json_object"}})").unenforced.empty());
  EXPECT_EQ(parse_error(chat + R"("response_format":{"type":"json_object","whitespace":300}})").param,
            "response_format.whitespace");
}

}  // namespace
}  // namespace ogai::serve

namespace ogai::serve {
namespace {

// Tool parameters keep the key order the client wrote (the template prints them as transformers
// does), although the request's DOM sorts keys.
TEST(ParseChat, ToolParametersKeepTheirKeyOrder) {
  ApiRequest r = parse_chat_request(
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":)"
      R"({"name":"f","parameters":{"type":"object","required":["z"],"properties":{"z":{"type":"integer"},"a":{}}}}},)"
      R"({"type":"function","function":{"name":"g"}}]})");
  ASSERT_EQ(r.chat.tools.size(), 2u);
  EXPECT_EQ(r.chat.tools[0].parameters,
            R"({"type":"object","required":["z"],"properties":{"z":{"type":"integer"},"a":{}}})");
  EXPECT_EQ(r.chat.tools[1].parameters, "");
}

}  // namespace
}  // namespace ogai::serve
