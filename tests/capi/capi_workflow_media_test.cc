// The C API's workflow surface (ogai_workflow_*) with media in and out, against the C++ API of
// the same library: the speech_wav fixture's audio.wav (the header and 128-byte data chunk the
// reference pins, and the bytes ogai::Workflow::encode_media gives), the vlm fixture given a PNG's
// bytes as its media input (the tokens shape the reference pins; the same tokens as the C++ API;
// a corrupt file refused naming the input), and the diffusion fixture's out-of-range image
// refused naming the output.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "ogai/ogai.h"
#include "ogai/ogai_c.h"

namespace {

const std::string kFixtures = std::string(OGAI_SHARED_DIR) + "/conformance/metadata/fixtures/";

// A 1x1 red PNG (what Pillow writes for Image.new("RGB", (1, 1), (255, 0, 0))): an input.
const std::vector<std::uint8_t> kRedPng{
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00,
    0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9,
    0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

struct Handles {
  ogai_workflow* wf = nullptr;
  ogai_workflow_request* req = nullptr;
  ogai_workflow_result* result = nullptr;
  ~Handles() {
    ogai_workflow_result_free(result);
    ogai_workflow_request_free(req);
    ogai_workflow_free(wf);
  }
};

std::uint32_t u32(const std::uint8_t* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

TEST(CapiWorkflowMedia, SpeechWavOutputIsTheEncodedFile) {
  Handles h;
  ASSERT_EQ(ogai_workflow_load((kFixtures + "speech_wav").c_str(), &h.wf), OGAI_OK) << ogai_last_error_message();
  ASSERT_EQ(ogai_workflow_request_create(&h.req), OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_json(h.req, "request.prompt_tokens", "[[2,6,7,8,9,3]]"), OGAI_OK);
  ASSERT_EQ(ogai_workflow_run(h.wf, h.req, &h.result), OGAI_OK) << ogai_last_error_message();
  size_t count = 0;
  ASSERT_EQ(ogai_workflow_result_media_count(h.result, &count), OGAI_OK);
  ASSERT_EQ(count, 1u);
  const char* path = nullptr;
  const uint8_t* data = nullptr;
  size_t size = 0;
  ASSERT_EQ(ogai_workflow_result_media(h.result, 0, &path, &data, &size), OGAI_OK);
  EXPECT_STREQ(path, "audio.wav");
  ASSERT_EQ(size, 44u + 128u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(data), 4), "RIFF");
  EXPECT_EQ(u32(data + 24), 24000u);
  EXPECT_EQ(u32(data + 40), 128u);
  EXPECT_EQ(ogai_workflow_result_media(h.result, 1, &path, &data, &size), OGAI_INVALID_ARGUMENT);
  const char* json = nullptr;
  ASSERT_EQ(ogai_workflow_result_json(h.result, &json), OGAI_OK);
  const auto doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc["outputs"]["audio"]["shape"], (nlohmann::json{1, 2, 64}));
  // The C++ API on the same request: the same bytes.
  auto wf = ogai::Workflow::load(kFixtures + "speech_wav");
  ogai::WorkflowRequest request;
  request.inputs["request.prompt_tokens"] = ogai::TensorValue::int64({2, 6, 7, 8, 9, 3}, {1, 6});
  const auto files = wf->encode_media(wf->run(request));
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].bytes, std::vector<std::uint8_t>(data, data + size));
}

TEST(CapiWorkflowMedia, PngBytesAsTheVlmMediaInput) {
  Handles h;
  ASSERT_EQ(ogai_workflow_load((kFixtures + "vlm").c_str(), &h.wf), OGAI_OK) << ogai_last_error_message();
  ASSERT_EQ(ogai_workflow_request_create(&h.req), OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_media(h.req, "request.image", kRedPng.data(), kRedPng.size()), OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_json(h.req, "request.prompt_tokens", "[[4,5]]"), OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_max_new_tokens(h.req, 2), OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_seed(h.req, 7), OGAI_OK);
  ASSERT_EQ(ogai_workflow_run(h.wf, h.req, &h.result), OGAI_OK) << ogai_last_error_message();
  const char* json = nullptr;
  ASSERT_EQ(ogai_workflow_result_json(h.result, &json), OGAI_OK);
  const auto doc = nlohmann::json::parse(json)["outputs"];
  const auto& tokens = doc.contains("tokens") ? doc["tokens"] : doc["tokens.row.0"];
  EXPECT_EQ(tokens["shape"], (nlohmann::json{1, 2}));
  size_t count = 1;
  ASSERT_EQ(ogai_workflow_result_media_count(h.result, &count), OGAI_OK);
  EXPECT_EQ(count, 0u);  // tokens are no media
  // The C++ API with the same bytes: the same tokens.
  auto wf = ogai::Workflow::load(kFixtures + "vlm");
  ogai::WorkflowRequest request;
  request.inputs["request.image"] = ogai::TensorValue::bytes(kRedPng.data(), kRedPng.size());
  request.json_inputs["request.prompt_tokens"] = "[[4,5]]";
  request.max_new_tokens = 2;
  request.seed = 7;
  const auto out = wf->run(request);
  const auto* cpp = out.outputs.count("tokens") ? &out.outputs.at("tokens") : &out.outputs.at("tokens.row.0");
  EXPECT_EQ(nlohmann::json(cpp->as_int64()), tokens["data"]);
  // A truncated PNG: refused naming the input.
  ogai_workflow_result* bad = nullptr;
  ASSERT_EQ(ogai_workflow_request_set_media(h.req, "request.image", kRedPng.data(), 30), OGAI_OK);
  EXPECT_NE(ogai_workflow_run(h.wf, h.req, &bad), OGAI_OK);
  EXPECT_EQ(bad, nullptr);
  EXPECT_NE(std::string(ogai_last_error_message()).find("request.image"), std::string::npos) << ogai_last_error_message();
}

TEST(CapiWorkflowMedia, AnImageOutsideItsRangeIsRefusedNamingTheOutput) {
  Handles h;
  ASSERT_EQ(ogai_workflow_load((kFixtures + "diffusion").c_str(), &h.wf), OGAI_OK) << ogai_last_error_message();
  ASSERT_EQ(ogai_workflow_request_create(&h.req), OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_json(h.req, "request.input_ids", "[[1,2]]"), OGAI_OK);
  std::vector<float> noise(64);
  for (int i = 0; i < 64; ++i) noise[i] = static_cast<float>(i - 32) / 16.0f;
  const int64_t shape[] = {1, 4, 4, 4};
  ASSERT_EQ(ogai_workflow_request_set_tensor(h.req, "noise", "float32", shape, 4, noise.data(), 64 * sizeof(float)),
            OGAI_OK);
  ASSERT_EQ(ogai_workflow_request_set_max_new_tokens(h.req, 2), OGAI_OK);
  EXPECT_EQ(ogai_workflow_run(h.wf, h.req, &h.result), OGAI_INVALID_PACKAGE);
  const std::string msg = ogai_last_error_message();
  EXPECT_NE(msg.find("outputs.image"), std::string::npos) << msg;
  EXPECT_NE(msg.find("negative_one_to_one"), std::string::npos) << msg;
  EXPECT_EQ(ogai_workflow_request_set_json(h.req, "noise", "@/etc/passwd"), OGAI_OK);
  EXPECT_EQ(ogai_workflow_run(h.wf, h.req, &h.result), OGAI_INVALID_ARGUMENT);
}

}  // namespace
