// Media through the C API (ogai_options_add_media, chat content parts): text parts render as the
// message's text, media parts take the added clips in order per kind, a count that differs is an
// error naming it, and a text-only package refuses media by name (never drops it).
#include <gtest/gtest.h>

#include <string>

#include "ogai/ogai_c.h"

namespace {

const std::string kTiny = std::string(OGAI_SOURCE_DIR) + "/tests/data/packages/tiny-e2b";
const char kPng[] = "\x89PNG\r\n\x1a\n";

class CapiMedia : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(ogai_model_load(kTiny.c_str(), "cpu", &model_), OGAI_OK) << ogai_last_error_message();
    ASSERT_EQ(ogai_options_create(&options_), OGAI_OK);
    ogai_options_set_max_new_tokens(options_, 4);
    ogai_options_set_temperature(options_, 0);
  }
  void TearDown() override {
    ogai_options_free(options_);
    ogai_model_free(model_);
  }
  ogai_status chat(const char* messages, std::string* text = nullptr) {
    ogai_chat_result* r = nullptr;
    const ogai_status s = ogai_chat(model_, messages, nullptr, nullptr, nullptr, options_, nullptr, nullptr, &r);
    if (s == OGAI_OK && text) {
      const char* t = nullptr;
      size_t n = 0;
      ogai_chat_result_content(r, &t, &n);
      *text = std::string(t, n);
    }
    ogai_chat_result_free(r);
    return s;
  }
  ogai_model* model_ = nullptr;
  ogai_options* options_ = nullptr;
};

TEST_F(CapiMedia, TextPartsEqualTextContent) {
  std::string parts, plain;
  ASSERT_EQ(chat(R"([{"role": "user", "content": [{"type": "text", "text": "Tell me "},
                                                  {"type": "text", "text": "a story."}]}])", &parts), OGAI_OK)
      << ogai_last_error_message();
  ASSERT_EQ(chat(R"([{"role": "user", "content": "Tell me a story."}])", &plain), OGAI_OK);
  EXPECT_EQ(parts, plain);
}

TEST_F(CapiMedia, PartsAndClipsMustMatch) {
  EXPECT_EQ(chat(R"([{"role": "user", "content": [{"type": "text", "text": "what?"}, {"type": "image"}]}])"),
            OGAI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ogai_last_error_message()).find("messages_json[0].content[1]"), std::string::npos)
      << ogai_last_error_message();
  ASSERT_EQ(ogai_options_add_media(options_, OGAI_MEDIA_AUDIO, "RIFF", 4, "audio/wav"), OGAI_OK);
  EXPECT_EQ(chat(R"([{"role": "user", "content": "no parts"}])"), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ogai_last_error_message()).find("1 audio clips were added"), std::string::npos)
      << ogai_last_error_message();
  EXPECT_EQ(chat(R"([{"role": "user", "content": [{"type": "video"}]}])"), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ogai_last_error_message()).find("'video' is not one of"), std::string::npos);
  EXPECT_EQ(ogai_options_add_media(options_, static_cast<ogai_media_kind>(7), "x", 1, nullptr), OGAI_INVALID_ARGUMENT);
  EXPECT_EQ(ogai_options_add_media(options_, OGAI_MEDIA_IMAGE, nullptr, 3, nullptr), OGAI_INVALID_ARGUMENT);
}

TEST_F(CapiMedia, ATextOnlyPackageRefusesMediaByName) {
  ASSERT_EQ(ogai_options_add_media(options_, OGAI_MEDIA_IMAGE, kPng, sizeof kPng - 1, nullptr), OGAI_OK);
  EXPECT_EQ(chat(R"([{"role": "user", "content": [{"type": "text", "text": "what?"}, {"type": "image"}]}])"),
            OGAI_UNSUPPORTED);
  EXPECT_NE(std::string(ogai_last_error_message()).find("messages[0].parts[1]"), std::string::npos)
      << ogai_last_error_message();
  ogai_result* r = nullptr;
  EXPECT_EQ(ogai_generate(model_, "hi", options_, nullptr, nullptr, &r), OGAI_UNSUPPORTED);
  EXPECT_NE(std::string(ogai_last_error_message()).find("media[0]"), std::string::npos) << ogai_last_error_message();
  ASSERT_EQ(ogai_options_clear_media(options_), OGAI_OK);
  ASSERT_EQ(ogai_generate(model_, "hi", options_, nullptr, nullptr, &r), OGAI_OK) << ogai_last_error_message();
  ogai_result_free(r);
}

}  // namespace
