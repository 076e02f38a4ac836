// The C API's chat rendering and validation entry points through libogai.so, against the C++ API
// of the same library: ogai_render_chat on tiny-e2b and on a copy whose template raises,
// ogai_options_set_add_special_tokens, ogai_validate on valid and invalid packages, and every
// error path (NULL arguments, text that is not JSON, elements that are not messages, a path
// without a package).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

const std::string kTiny = std::string(OGAI_SOURCE_DIR) + "/tests/data/packages/tiny-e2b";
const std::string kStories = std::string(OGAI_BINARY_DIR) + "/packages/stories260k";
const std::string kFixtures = std::string(OGAI_SHARED_DIR) + "/conformance/metadata/fixtures";
const char* kMessages = R"([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello there"}])";

std::string last_error() { return ogai_last_error_message(); }

// Takes a string the C API returned; frees it.
std::string take(char* text) {
  std::string out = text ? text : "";
  ogai_string_free(text);
  return out;
}

class CapiChatTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_EQ(ogai_model_load(kTiny.c_str(), "cpu", &model_), OGAI_OK) << last_error();
    cpp_ = ogai::Model::load(kTiny);
  }
  static void TearDownTestSuite() {
    ogai_model_free(model_);
    model_ = nullptr;
    cpp_.reset();
  }
  static ogai_model* model_;
  static std::shared_ptr<const ogai::Model> cpp_;
};
ogai_model* CapiChatTest::model_ = nullptr;
std::shared_ptr<const ogai::Model> CapiChatTest::cpp_;

TEST_F(CapiChatTest, RenderChatMatchesTheCppApi) {
  const std::vector<ogai::ChatMessage> messages = {{"system", "Be brief."}, {"user", "Hello there"}};
  for (int add_generation_prompt : {1, 0}) {
    char* text = nullptr;
    ASSERT_EQ(ogai_render_chat(model_, kMessages, add_generation_prompt, &text), OGAI_OK) << last_error();
    std::string rendered = take(text);
    EXPECT_EQ(rendered, cpp_->render_chat(messages, add_generation_prompt != 0));
    EXPECT_NE(rendered.find("Hello there"), std::string::npos) << rendered;
  }
  char* empty = nullptr;
  ASSERT_EQ(ogai_render_chat(model_, "[]", 1, &empty), OGAI_OK) << last_error();
  EXPECT_EQ(take(empty), cpp_->render_chat({}, true));
}

TEST_F(CapiChatTest, GeneratingFromARenderedChatSkipsSpecialTokens) {
  char* prompt = nullptr;
  ASSERT_EQ(ogai_render_chat(model_, kMessages, 1, &prompt), OGAI_OK) << last_error();
  const std::string text = take(prompt);
  ogai_options* options = nullptr;
  ASSERT_EQ(ogai_options_create(&options), OGAI_OK);
  ASSERT_EQ(ogai_options_set_add_special_tokens(options, 0), OGAI_OK);
  ASSERT_EQ(ogai_options_set_max_new_tokens(options, 4), OGAI_OK);
  ASSERT_EQ(ogai_options_set_temperature(options, 0.0f), OGAI_OK);
  ogai_result* result = nullptr;
  ASSERT_EQ(ogai_generate(model_, text.c_str(), options, nullptr, nullptr, &result), OGAI_OK) << last_error();
  const int32_t* ids = nullptr;
  size_t count = 0;
  ASSERT_EQ(ogai_result_prompt_ids(result, &ids, &count), OGAI_OK);
  EXPECT_EQ(std::vector<std::int32_t>(ids, ids + count), cpp_->tokenize(text, false));
  ogai_result_free(result);
  ogai_options_free(options);
  EXPECT_EQ(ogai_options_set_add_special_tokens(nullptr, 0), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "options: must not be NULL");
}

TEST_F(CapiChatTest, RenderChatErrorsNameTheElement) {
  struct Case {
    const char* json;
    ogai_status status;
    const char* message;
  };
  const Case cases[] = {
      {"[{\"role\": \"user\"", OGAI_PARSE, "messages_json: not valid JSON"},
      {"{\"role\": \"user\"}", OGAI_INVALID_ARGUMENT,
       "messages_json: expected an array of {\"role\", \"content\"} objects, got object"},
      {"[42]", OGAI_INVALID_ARGUMENT, "messages_json[0]: expected an object, got number"},
      {"[{\"role\": \"user\", \"content\": \"a\"}, {\"role\": \"user\", \"content\": 3}]", OGAI_INVALID_ARGUMENT,
       "messages_json[1].content: expected a string"},
      {"[{\"content\": \"a\"}]", OGAI_INVALID_ARGUMENT, "messages_json[0].role: expected a string"},
  };
  for (const Case& c : cases) {
    char* text = reinterpret_cast<char*>(0x1);  // untouched on failure
    EXPECT_EQ(ogai_render_chat(model_, c.json, 1, &text), c.status) << c.json;
    EXPECT_EQ(last_error(), c.message) << c.json;
    EXPECT_EQ(text, reinterpret_cast<char*>(0x1));
  }
  char* text = nullptr;
  EXPECT_EQ(ogai_render_chat(nullptr, kMessages, 1, &text), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "model: must not be NULL");
  EXPECT_EQ(ogai_render_chat(model_, nullptr, 1, &text), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "messages_json: must not be NULL");
  EXPECT_EQ(ogai_render_chat(model_, kMessages, 1, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "text: must not be NULL");
}

// A copy of tiny-e2b whose template raises on a system message: the template's error crosses the
// C API with the C++ API's message.
TEST(CapiChat, TemplateErrorIsReported) {
  namespace fs = std::filesystem;
  const fs::path copy = fs::temp_directory_path() / ("ogai-capi-raising-template-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::copy(kTiny, copy, fs::copy_options::recursive);
  {
    std::ofstream out(copy / "chat_template.jinja", std::ios::trunc);
    out << "{%- if messages[0]['role'] == 'system' -%}{{ raise_exception('system messages are not supported') }}"
           "{%- endif -%}{%- for m in messages -%}{{ m['content'] }}{%- endfor -%}";
  }
  ogai_model* model = nullptr;
  ASSERT_EQ(ogai_model_load(copy.c_str(), "cpu", &model), OGAI_OK) << last_error();
  std::string expected;
  try {
    ogai::Model::load(copy)->render_chat(std::vector<ogai::ChatMessage>{{"system", "Be brief."}}, true);
  } catch (const ogai::Error& e) {
    expected = e.what();
  }
  EXPECT_NE(expected.find("system messages are not supported"), std::string::npos) << expected;
  char* text = nullptr;
  EXPECT_NE(ogai_render_chat(model, kMessages, 1, &text), OGAI_OK);
  EXPECT_EQ(last_error(), expected);
  EXPECT_EQ(text, nullptr);
  ASSERT_EQ(ogai_render_chat(model, R"([{"role": "user", "content": "hi"}])", 1, &text), OGAI_OK) << last_error();
  EXPECT_EQ(take(text), "hi");
  ogai_model_free(model);
  fs::remove_all(copy);
}

TEST(CapiValidate, ValidPackagesHaveNoProblems) {
  for (const std::string& path : {kTiny, kStories, kFixtures + "/decoder"}) {
    int valid = -1;
    char* problems = nullptr;
    ASSERT_EQ(ogai_validate(path.c_str(), &valid, &problems), OGAI_OK) << path << ": " << last_error();
    EXPECT_EQ(valid, 1) << path;
    EXPECT_EQ(take(problems), "") << path;
  }
}

TEST(CapiValidate, InvalidPackageListsRuleLines) {
  const std::string path = kFixtures + "/validator_missing_artifact";
  int valid = -1;
  char* problems = nullptr;
  ASSERT_EQ(ogai_validate(path.c_str(), &valid, &problems), OGAI_OK) << last_error();
  EXPECT_EQ(valid, 0);
  const std::string lines = take(problems);
  EXPECT_EQ(lines.rfind("PKG pipeline.workflow.components.missing.implementation.artifact: ", 0), 0u) << lines;
  EXPECT_NE(lines.find("missing.onnx"), std::string::npos) << lines;
  EXPECT_EQ(lines.back(), '\n');
  ogai::ValidationResult cpp = ogai::validate(path);
  ASSERT_EQ(cpp.problems.size(), 1u);
  EXPECT_EQ(lines, cpp.problems[0].text() + "\n");
}

TEST(CapiValidate, ErrorPaths) {
  const std::string missing = (std::filesystem::temp_directory_path() / "ogai-no-such-package").string();
  int valid = -1;
  char* problems = reinterpret_cast<char*>(0x1);
  EXPECT_EQ(ogai_validate(missing.c_str(), &valid, &problems), OGAI_NOT_FOUND);
  EXPECT_NE(last_error().find(missing), std::string::npos) << last_error();
  EXPECT_EQ(valid, -1);
  EXPECT_EQ(problems, reinterpret_cast<char*>(0x1));
  EXPECT_EQ(ogai_validate(nullptr, &valid, &problems), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "path: must not be NULL");
  EXPECT_EQ(ogai_validate(kTiny.c_str(), nullptr, &problems), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "valid: must not be NULL");
  EXPECT_EQ(ogai_validate(kTiny.c_str(), &valid, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(last_error(), "problems: must not be NULL");
}

}  // namespace
