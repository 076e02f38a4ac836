// The C API's media budgets (ogai_media_limits, ogai_model_load_with_limits) and a workflow's CTC
// transcripts in ogai_workflow_result_json. Budgets on the tiny-vlm package (the
// multimodal_packages test writes it): each lowered below the request's media refuses it with
// OGAI_INVALID_ARGUMENT naming the flag, at the media's size it is accepted; the defaults equal the
// C++ struct's; a zero budget is refused at load. Transcripts on the CTC package
// tests/e2e/ctc_package.py writes (the ctc_capi_package test): the known texts of the encoder's
// argmax path, one per batch row, the padded row cut at its length.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

const std::string kVlm = std::string(OGAI_BINARY_DIR) + "/multimodal/tiny-vlm";
const std::string kCtc = std::string(OGAI_BINARY_DIR) + "/ctc_capi/raw";

// An 8x8 RGB PNG (64 pixels) made by Pillow: Image.new("RGB", (8, 8), (200, 40, 90)).
const std::vector<unsigned char> kPng{
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
    0x00, 0x08, 0x00, 0x00, 0x00, 0x08, 0x08, 0x02, 0x00, 0x00, 0x00, 0x4b, 0x6d, 0x29, 0xdc, 0x00, 0x00, 0x00,
    0x14, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x3c, 0xa1, 0x11, 0xc5, 0x80, 0x0d, 0x30, 0x61, 0x15, 0x1d,
    0xb4, 0x12, 0x00, 0x06, 0xc1, 0x01, 0x5a, 0xf3, 0xa3, 0x91, 0xd0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82};

// Loads tiny-vlm with `limits` and generates from a prompt with one image placeholder per image.
ogai_status generate(const ogai_media_limits& limits, int images, std::string* error) {
  ogai_model* model = nullptr;
  ogai_status s = ogai_model_load_with_limits(kVlm.c_str(), "cpu", &limits, &model);
  if (s != OGAI_OK) {
    *error = ogai_last_error_message();
    return s;
  }
  ogai_options* options = nullptr;
  ogai_options_create(&options);
  ogai_options_set_max_new_tokens(options, 2);
  ogai_options_set_temperature(options, 0);
  std::string prompt = "<bos> describe";
  for (int i = 0; i < images; ++i) {
    ogai_options_add_media(options, OGAI_MEDIA_IMAGE, kPng.data(), kPng.size(), "image/png");
    prompt += " <|image|>";
  }
  ogai_result* result = nullptr;
  s = ogai_generate(model, prompt.c_str(), options, nullptr, nullptr, &result);
  *error = s == OGAI_OK ? "" : ogai_last_error_message();
  ogai_result_free(result);
  ogai_options_free(options);
  ogai_model_free(model);
  return s;
}

TEST(CapiMediaLimits, DefaultsAreTheCppStruct) {
  ogai_media_limits c;
  ogai_media_limits_default(&c);
  const ogai::MediaLimits cpp;
  EXPECT_EQ(c.max_media_parts, cpp.max_media_parts);
  EXPECT_EQ(c.max_media_bytes, cpp.max_media_bytes);
  EXPECT_EQ(c.max_image_pixels, cpp.max_image_pixels);
  EXPECT_EQ(c.max_decoded_bytes, cpp.max_decoded_bytes);
  EXPECT_EQ(c.max_audio_seconds, cpp.max_audio_seconds);
}

TEST(CapiMediaLimits, EachBudgetNamesItsFlag) {
  struct Case {
    std::uint64_t ogai_media_limits::*field;
    std::uint64_t refused, accepted;
    int images;
    const char* flag;
  };
  const Case cases[] = {{&ogai_media_limits::max_image_pixels, 63, 64, 1, "--max-image-pixels"},
                        {&ogai_media_limits::max_decoded_bytes, 100, 1'000'000, 1, "--max-decoded-bytes"},
                        {&ogai_media_limits::max_media_bytes, kPng.size() - 1, kPng.size(), 1, "--max-media-bytes"},
                        {&ogai_media_limits::max_media_parts, 1, 2, 2, "--max-media-parts"}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flag);
    ogai_media_limits limits;
    ogai_media_limits_default(&limits);
    std::string error;
    limits.*c.field = c.accepted;
    EXPECT_EQ(generate(limits, c.images, &error), OGAI_OK) << error;
    limits.*c.field = c.refused;
    EXPECT_EQ(generate(limits, c.images, &error), OGAI_INVALID_ARGUMENT);
    EXPECT_NE(error.find(c.flag), std::string::npos) << error;
  }
}

TEST(CapiMediaLimits, ZeroIsRefusedAtLoad) {
  ogai_media_limits limits;
  ogai_media_limits_default(&limits);
  limits.max_audio_seconds = 0;
  ogai_model* model = nullptr;
  EXPECT_EQ(ogai_model_load_with_limits(kVlm.c_str(), "cpu", &limits, &model), OGAI_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ogai_last_error_message()).find("limits.max_audio_seconds"), std::string::npos);
  EXPECT_EQ(model, nullptr);
}

TEST(CapiWorkflowCtc, ResultJsonHoldsTheTranscripts) {
  ogai_workflow* wf = nullptr;
  ASSERT_EQ(ogai_workflow_load(kCtc.c_str(), &wf), OGAI_OK) << ogai_last_error_message();
  ogai_workflow_request* req = nullptr;
  ASSERT_EQ(ogai_workflow_request_create(&req), OGAI_OK);
  // The classes of ctc_run_cli_test.py's rows, as samples class / 4; the second row is 6 frames long.
  ASSERT_EQ(ogai_workflow_request_set_json(req, "request.input_values",
                                           "[[0.25,0.25,0,0.25,0.5,0.75,0.75,0.5,1,0.5],"
                                           "[0.75,0.75,0.25,0.5,0.5,0,0.25,0.25,0.25,0.25]]"),
            OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_json(req, "request.attention_mask",
                                           "[[1,1,1,1,1,1,1,1,1,1],[1,1,1,1,1,1,0,0,0,0]]"),
            OGAI_OK);
  ogai_workflow_result* result = nullptr;
  ASSERT_EQ(ogai_workflow_run(wf, req, &result), OGAI_OK) << ogai_last_error_message();
  const char* json = nullptr;
  ASSERT_EQ(ogai_workflow_result_json(result, &json), OGAI_OK);
  const auto doc = nlohmann::json::parse(json);
  const auto& rows = doc.at("transcriptions").at("transcription");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("text"), "AAB BB");
  EXPECT_EQ(rows[1].at("text"), "AB");
  EXPECT_EQ(rows[1].at("ids"), nlohmann::json({3, 1, 2}));
  ogai_workflow_result_free(result);
  ogai_workflow_request_free(req);
  ogai_workflow_free(wf);
}

}  // namespace
