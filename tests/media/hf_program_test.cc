// The units behind the Hugging Face processor programs (the values themselves are checked against
// Pillow + NumPy and transformers.js by tests/e2e/preprocess_cli_test.py): PyTorch's bicubic at
// the same size is the identity, Phi-3-V's token count, the HD transform's refusal of an image
// whose canvas would be empty, alpha compositing's end points, and parse errors of the new ops
// and parameters naming their path.
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "media/image/composite.h"
#include "media/image/hd_transform.h"
#include "media/image/program.h"
#include "media/image/tensor_interpolate.h"

namespace ogai::media {
namespace {

TEST(MediaHfUnits, BicubicAtTheSameSizeIsTheIdentity) {
  std::vector<float> chw(3 * 5 * 7);
  for (std::size_t i = 0; i < chw.size(); ++i) chw[i] = static_cast<float>((i * 37) % 101) - 50.0f;
  EXPECT_EQ(interpolate_bicubic(chw, 3, 7, 5, 7, 5), chw);
  const auto half = interpolate_bicubic(chw, 3, 7, 5, 3, 2);
  EXPECT_EQ(half.size(), 3u * 3 * 2);
}

TEST(MediaHfUnits, Phi3TokenCounts) {
  EXPECT_EQ(hd_token_count(2, 2, 144), 757);  // 672 x 672: (4 + 1) * 144 + 1 + 3 * 12
  EXPECT_EQ(hd_token_count(1, 2, 144), 457);
  EXPECT_EQ(hd_token_count(4, 4, 144), 17 * 144 + 1 + 5 * 12);
}

TEST(MediaHfUnits, HdTransformRefusesAnEmptyCanvasAndTransposesPortraits) {
  const Raster thin = make_raster(1, 3000, 3);
  try {
    hd_transform(thin, 336, 4, ResizeFilter::kBilinear, 255, TileSpec::Thumbnail::kPrepend, {}, "request.image");
    FAIL() << "a 1 x 3000 image was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("request.image"), std::string::npos) << e.what();
  }
  const HdTiles tall = hd_transform(make_raster(300, 700, 3), 336, 4, ResizeFilter::kBilinear, 255,
                                    TileSpec::Thumbnail::kPrepend, {}, "x");
  // Transposed: 700 x 300 (ratio 7/3) gets scale 2 (3 * ceil(9/7) = 6 > 4), 672 x 288 padded to
  // 672 x 336; transposed back, one column of two crops.
  EXPECT_EQ(tall.canvas_width, 336u);
  EXPECT_EQ(tall.canvas_height, 672u);
  EXPECT_EQ(tall.rows, 2u);
  EXPECT_EQ(tall.columns, 1u);
  EXPECT_EQ(tall.planes.size(), 1u + 2u);
}

TEST(MediaHfUnits, CompositeEndPoints) {
  Raster rgba = make_raster(2, 1, 4);
  rgba.pixels = {10, 20, 30, 0, 10, 20, 30, 255};
  const Raster out = composite_rgb(rgba, {200, 100, 50});
  EXPECT_EQ(out.pixels, (std::vector<std::uint8_t>{200, 100, 50, 10, 20, 30}));
}

TEST(MediaHfUnits, ParseErrorsNameThePath) {
  auto expect_error = [](const std::string& transforms, const std::string& where) {
    const std::string text = R"({"transforms": [{"op": "decode", "outputs": ["d"]}, )" + transforms +
                             R"(], "outputs": [{"name": "p", "content": "pixels", "dtype": "float32"}]})";
    try {
      ImageProgram::parse(nlohmann::json::parse(text), "preprocessing.image");
      FAIL() << "accepted: " << transforms;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidPackage);
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  };
  const std::string tile = R"({"op": "tile", "inputs": ["d"], "outputs": ["t"], "mode": "hd_transform", "tile_size": 336)";
  expect_error(tile + R"(, "canvas_pad_value": 300})", "transforms[1].canvas_pad_value");
  expect_error(tile + R"(, "interpolation": "cubic"})", "transforms[1].interpolation");
  expect_error(tile + R"(}, {"op": "emit_token_count", "inputs": ["t"], "tokens_per_tile": 140})",
               "transforms[2].tokens_per_tile");
  expect_error(tile + R"(}, {"op": "emit_token_count", "inputs": ["t"], "tokens_per_tile": 144, "patches_per_token": 4})",
               "transforms[2]");
  expect_error(R"({"op": "patchify", "inputs": ["d"], "outputs": ["p"], "patch_size": 14},
                  {"op": "emit_token_count", "inputs": ["p"], "tokens_per_tile": 144})",
               "transforms[2].inputs");  // tile counts read pixels, not patches
  expect_error(R"({"op": "convert_rgb", "inputs": ["d"], "background": [256, 0, 0]})", "transforms[1].background");
  expect_error(R"({"op": "convert_rgb", "inputs": ["d"], "background": [1.5, 0, 0]})", "transforms[1].background");
}

}  // namespace
}  // namespace ogai::media
