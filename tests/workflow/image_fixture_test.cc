// The `vlm` conformance fixture (issue 34): image_preprocess (adapter
// onnx-genai.image-preprocess@1 running preprocessing.image) -> vision_encoder -> embedding -> a
// KV decoder loop. The reference's test feeds a 69-byte 1x1 red PNG, prompt [4, 5], 2 new tokens,
// seed 7, and pins tokens [1, 2]; its program gives pixel_values [4, 1176] and grid_thw
// [[1, 2, 2]]. Hostile images through the workflow are errors naming the input.
#include <gtest/gtest.h>

#include "base/error.h"
#include "support.h"

namespace ogai::workflow::testing {
namespace {

// A 1x1 red (255, 0, 0) RGB PNG as Pillow writes it: 69 bytes.
const std::vector<std::uint8_t> kRedPng = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00,
    0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9,
    0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};

ort::Tensor bytes_tensor(const std::vector<std::uint8_t>& bytes) {
  return ort::Tensor::copy_of(std::span<const std::uint8_t>(bytes), {static_cast<std::int64_t>(bytes.size())});
}

RunRequest vlm_request(const std::vector<std::uint8_t>& image) {
  RunRequest r;
  r.tensors.emplace("request.image", bytes_tensor(image));
  r.prompt_tokens = std::vector<TokenId>{4, 5};
  r.max_new_tokens = 2;
  r.seed = 7;
  return r;
}

TEST(VlmFixture, RedPngGivesTwoTokens) {
  ASSERT_EQ(kRedPng.size(), 69u);
  const RunResult result = run(program("vlm"), vlm_request(kRedPng));
  const ort::Tensor* tokens = result.first("tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->shape(), (ort::Shape{1, 2}));
}

TEST(VlmFixture, TheAdapterMakesPixelValuesAndGrid) {
  const Program& p = program("vlm");
  const Adapter& adapter = *p.adapters.at("image_preprocess");
  const ort::Tensor encoded = bytes_tensor(kRedPng);
  AdapterCall call;
  call.inputs["encoded"] = &encoded;
  call.input_values["encoded"] = "request.image";
  call.output_values = {{"pixel_values", "image.pixel_values"}, {"grid_thw", "image.grid_thw"}};
  call.what = "test";
  auto out = adapter.run(call);
  ASSERT_EQ(out.count("pixel_values"), 1u);
  EXPECT_EQ(out.at("pixel_values").shape(), (ort::Shape{4, 1176}));
  EXPECT_EQ(out.at("pixel_values").dtype(), DataType::kFloat32);
  const auto px = floats(out.at("pixel_values"));
  EXPECT_EQ(px[0], 1.0f);     // red: (1 - 0.5) / 0.5
  EXPECT_EQ(px[392], -1.0f);  // green block
  EXPECT_EQ(ints(out.at("grid_thw")), (std::vector<std::int64_t>{1, 2, 2}));
  EXPECT_EQ(out.at("grid_thw").shape(), (ort::Shape{1, 3}));
}

std::string run_error(const std::vector<std::uint8_t>& image) {
  try {
    run(program("vlm"), vlm_request(image));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(VlmFixture, HostileImagesAreErrorsNamingTheInput) {
  std::vector<std::uint8_t> truncated(kRedPng.begin(), kRedPng.begin() + 45);
  std::vector<std::uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd'};
  std::vector<std::uint8_t> bomb = kRedPng;  // IHDR says 60,000 x 60,000 (the CRC is then wrong too)
  bomb[16] = 0, bomb[17] = 0, bomb[18] = 0xea, bomb[19] = 0x60, bomb[20] = 0, bomb[21] = 0, bomb[22] = 0xea,
  bomb[23] = 0x60;
  for (const auto* image : {&truncated, &text}) {
    const std::string e = run_error(*image);
    EXPECT_NE(e.find("request.image"), std::string::npos) << e;
  }
  const std::string e = run_error(bomb);
  EXPECT_NE(e.find("request.image"), std::string::npos) << e;
  EXPECT_NE(run_error({}).find("request.image"), std::string::npos);
}

}  // namespace
}  // namespace ogai::workflow::testing
