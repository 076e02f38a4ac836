// Building prompt ids from a parsed request against a real package (tests/data/packages/tiny-e2b:
// a Gemma-style chat template, vocabulary 515, context 512).
#include <gtest/gtest.h>

#include <filesystem>

#include "serve/audio/transcription_request.h"
#include "serve/common/prompt.h"

namespace ogai::serve {
namespace {

class PromptTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { model_ = Model::load(std::filesystem::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b"); }
  static void TearDownTestSuite() { model_.reset(); }
  static std::shared_ptr<const Model> model_;

  ApiError error_of(ApiRequest r) {
    try {
      prompt_ids(*model_, r);
    } catch (const ApiError& e) {
      return e;
    }
    ADD_FAILURE() << "expected an ApiError";
    return {};
  }
};
std::shared_ptr<const Model> PromptTest::model_;

TEST_F(PromptTest, ChatGoesThroughTheTemplateWithoutAddedSpecialTokens) {
  ApiRequest r = parse_chat_request(R"({"model":"m","messages":[{"role":"system","content":"Be kind."},
                                        {"role":"user","content":"Hello"}]})");
  const std::vector<ChatMessage> messages{{"system", "Be kind."}, {"user", "Hello"}};
  std::string rendered = model_->render_chat(messages, true);
  EXPECT_NE(rendered.find("<start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n"), std::string::npos);
  auto ids = prompt_ids(*model_, r);
  EXPECT_EQ(ids, model_->tokenize(rendered, false));
  // The template writes <bos> itself; tokenizing with special tokens would add a second one.
  EXPECT_NE(ids, model_->tokenize(rendered, true));
}

TEST_F(PromptTest, CompletionTextGetsSpecialTokens) {
  ApiRequest r = parse_completion_request(R"({"model":"m","prompt":"hello world"})");
  EXPECT_EQ(prompt_ids(*model_, r), model_->tokenize("hello world", true));
}

TEST_F(PromptTest, TokenIdsPassThroughAndAreChecked) {
  ApiRequest ids_request = parse_completion_request(R"({"model":"m","prompt":[2,10,11]})");
  EXPECT_EQ(prompt_ids(*model_, ids_request),
            (std::vector<std::int32_t>{2, 10, 11}));
  ApiError e = error_of(parse_completion_request(R"({"model":"m","prompt":[2,515]})"));
  EXPECT_EQ(e.param, "prompt");
  EXPECT_NE(e.message.find("515"), std::string::npos);
}

TEST_F(PromptTest, PromptOverTheContextIs400) {
  std::string ids = "[2";
  for (int i = 0; i < 600; ++i) ids += ",10";
  ApiError e = error_of(parse_completion_request(R"({"model":"m","prompt":)" + ids + "]}"));
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "context_length_exceeded");
  std::string long_text;
  for (int i = 0; i < 600; ++i) long_text += "hello ";
  e = error_of(parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":")" + long_text + "\"}]}"));
  EXPECT_EQ(e.code, "context_length_exceeded");
  EXPECT_EQ(e.param, "messages");
}

TEST_F(PromptTest, LogitBiasOutsideTheVocabulary) {
  ApiError e = error_of(parse_completion_request(R"({"model":"m","prompt":"x","logit_bias":{"9999":1}})"));
  EXPECT_EQ(e.param, "logit_bias");
}

// A text-only package refuses media parts; the 400 names the part where the client wrote it.
TEST_F(PromptTest, MediaPartsATextOnlyPackageRefusesAreNamedAsTheClientWroteThem) {
  ApiRequest chat = parse_chat_request(R"({"model":"m","messages":[{"role":"user","content":"Hi"},
      {"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]})");
  ApiError e = error_of(chat);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "unsupported");
  EXPECT_EQ(e.param, "messages[1].content[1]");
  EXPECT_NE(e.message.find("takes no image input"), std::string::npos) << e.message;
  const std::string form =
      "--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nm\r\n"
      "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n\r\nRIFF....WAVE\r\n--b--\r\n";
  ApiError audio = error_of(parse_transcription_request("multipart/form-data; boundary=b", form, false));
  EXPECT_EQ(audio.param, "file");
  EXPECT_NE(audio.message.find("takes no audio input"), std::string::npos) << audio.message;
}

}  // namespace
}  // namespace ogai::serve
