// ogai_chat (issue 26 item 9): a conversation with tools through the C API equals
// Model::prepare_chat + generate + parse_chat_reply with the same inputs, for a forced named
// call, a required call and a tool-result turn; errors name the element.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

namespace fs = std::filesystem;

const std::string kTiny = std::string(OGAI_SOURCE_DIR) + "/tests/data/packages/tiny-e2b";
const char* kTools = R"([{"type": "function", "function": {"name": "add", "parameters": {"type": "object",
  "properties": {"a": {"type": "integer", "minimum": 0, "maximum": 9}}, "required": ["a"],
  "additionalProperties": false}}}, {"type": "function", "function": {"name": "ping"}}])";

std::string last_error() { return ogai_last_error_message(); }

// tiny-e2b with a short template that lists the tools (its 512 positions fit no long preamble).
class CapiChatTools : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ogai-capi-chat-tools-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::copy(kTiny, dir_, fs::copy_options::recursive);
    std::ofstream(dir_ / "chat_template.jinja", std::ios::trunc)
        << "{%- for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor -%}"
           "{%- for t in tools %}tool: {{ t.function.name }}\n{% endfor %}assistant: ";
    ASSERT_EQ(ogai_model_load(dir_.c_str(), "cpu", &model_), OGAI_OK) << last_error();
    cpp_ = ogai::Model::load(dir_);
    ASSERT_EQ(ogai_options_create(&options_), OGAI_OK);
    ogai_options_set_max_new_tokens(options_, 60);
    ogai_options_set_temperature(options_, 0.0f);
  }
  void TearDown() override {
    ogai_options_free(options_);
    ogai_model_free(model_);
    fs::remove_all(dir_);
  }

  // The C++ API's reply to the same turn.
  ogai::ChatReply expected(const std::vector<ogai::ChatMessage>& messages, ogai::ToolChoice choice) const {
    ogai::ChatOptions o;
    for (const auto& t : nlohmann::json::parse(kTools))
      o.tools.push_back(
          {t["function"]["name"], "", t["function"].contains("parameters") ? t["function"]["parameters"].dump() : ""});
    o.tool_choice = choice;
    const ogai::ChatPrompt p = cpp_->prepare_chat(messages, o);
    ogai::GenerationOptions g;
    g.max_new_tokens = 60;
    g.sampling.temperature = 0.0f;
    g.add_special_tokens = false;
    g.response_format = p.constraint;
    return ogai::parse_chat_reply(p, cpp_->generate(p.text, g).text);
  }

  static nlohmann::json calls_of(const ogai_chat_result* r) {
    const char* json = nullptr;
    EXPECT_EQ(ogai_chat_result_tool_calls(r, &json), OGAI_OK);
    return nlohmann::json::parse(json);
  }

  fs::path dir_;
  ogai_model* model_ = nullptr;
  ogai_options* options_ = nullptr;
  std::shared_ptr<const ogai::Model> cpp_;
};

TEST_F(CapiChatTools, ForcedCallsEqualTheCppApi) {
  using Mode = ogai::ToolChoice::Mode;
  const char* messages = R"([{"role": "user", "content": "Add three"}])";
  for (const auto& [choice, cpp_choice] : {std::pair<const char*, ogai::ToolChoice>{"add", {Mode::kFunction, "add"}},
                                           {"required", {Mode::kRequired, ""}}}) {
    ogai_chat_result* r = nullptr;
    ASSERT_EQ(ogai_chat(model_, messages, kTools, choice, nullptr, options_, nullptr, nullptr, &r), OGAI_OK)
        << last_error();
    const ogai::ChatReply want = expected({{"user", "Add three"}}, cpp_choice);
    const nlohmann::json calls = calls_of(r);
    ASSERT_EQ(calls.size(), want.tool_calls.size()) << calls.dump();
    ASSERT_FALSE(calls.empty());
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(calls[i]["function"]["name"], want.tool_calls[i].name);
      EXPECT_EQ(calls[i]["function"]["arguments"], want.tool_calls[i].arguments);
      EXPECT_EQ(calls[i]["type"], "function");
      EXPECT_EQ(calls[i]["id"].get<std::string>().rfind("call_", 0), 0u);
    }
    if (std::string(choice) == "add") {
      EXPECT_EQ(calls[0]["function"]["name"], "add");
    }
    const char* content = nullptr;
    size_t length = 1;
    ASSERT_EQ(ogai_chat_result_content(r, &content, &length), OGAI_OK);
    EXPECT_EQ(std::string(content, length), want.content);
    const ogai_result* generation = nullptr;
    ASSERT_EQ(ogai_chat_result_generation(r, &generation), OGAI_OK);
    const int32_t* ids = nullptr;
    size_t count = 0;
    ASSERT_EQ(ogai_result_ids(generation, &ids, &count), OGAI_OK);
    EXPECT_GT(count, 0u);
    ogai_chat_result_free(r);
  }
}

TEST_F(CapiChatTools, AToolResultTurnContinues) {
  const char* messages = R"([{"role": "user", "content": "Add three"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
      "function": {"name": "add", "arguments": "{\"a\": 3}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "3"}])";
  ogai_chat_result* r = nullptr;
  ASSERT_EQ(ogai_chat(model_, messages, kTools, "none", nullptr, options_, nullptr, nullptr, &r), OGAI_OK)
      << last_error();
  std::vector<ogai::ChatMessage> conversation = {
      {"user", "Add three"}, {"assistant", "", {{"call_1", "add", "{\"a\": 3}"}}}, {"tool", "3", {}, "call_1"}};
  const ogai::ChatReply want = expected(conversation, {ogai::ToolChoice::Mode::kNone, ""});
  const char* content = nullptr;
  ASSERT_EQ(ogai_chat_result_content(r, &content, nullptr), OGAI_OK);
  EXPECT_EQ(std::string(content), want.content);
  EXPECT_EQ(calls_of(r), nlohmann::json::array());
  ogai_chat_result_free(r);
}

TEST_F(CapiChatTools, ErrorsNameTheElement) {
  ogai_chat_result* r = nullptr;
  const char* messages = R"([{"role": "user", "content": "hi"}])";
  EXPECT_EQ(ogai_chat(model_, messages, R"([{"type": "function", "function": {}}])", nullptr, nullptr, options_,
                      nullptr, nullptr, &r),
            OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("tools_json[0].function.name"), std::string::npos) << last_error();
  EXPECT_EQ(ogai_chat(model_, messages, kTools, "sub", nullptr, options_, nullptr, nullptr, &r), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("tool_choice"), std::string::npos) << last_error();
  EXPECT_EQ(ogai_chat(model_, "[{\"role\": \"user\"}]", kTools, nullptr, nullptr, options_, nullptr, nullptr, &r),
            OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("messages_json[0].content"), std::string::npos) << last_error();
  EXPECT_EQ(ogai_chat(model_, messages, "{", nullptr, nullptr, options_, nullptr, nullptr, &r), OGAI_PARSE);
  EXPECT_EQ(ogai_chat(model_, messages, kTools, nullptr, "[1]", options_, nullptr, nullptr, &r), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("template_kwargs_json"), std::string::npos) << last_error();
  EXPECT_EQ(ogai_chat(model_, messages, kTools, nullptr, nullptr, options_, nullptr, nullptr, nullptr),
            OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "result: must not be NULL");
  EXPECT_EQ(r, nullptr);
}

}  // namespace
