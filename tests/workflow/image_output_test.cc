// Image and video media outputs (src/workflow/image_output.h): value ranges (the pixel values the
// reference runtime's own tests pin), the range check, NCHW / NHWC / NCTHW layouts, video frames
// and their file names, on the diffusion fixture's declarations with edited outputs. The PNG
// bytes are decoded back with ogai's own libpng decoder (Pillow checks them in
// tests/e2e/image_output_cli_test.py).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "media/image/decode.h"
#include "support.h"
#include "workflow/image_output.h"
#include "workflow/media_output.h"

namespace ogai::workflow {
namespace {

using testing::f32;

metadata::Workflow diffusion_with(const std::string& range) {
  metadata::Workflow wf = testing::program("diffusion").workflow();
  metadata::find_named(wf.outputs, "image");
  for (auto& [name, o] : wf.outputs)
    if (name == "image") o.value_range = range;
  return wf;
}

std::vector<std::uint8_t> one_pixel(const std::string& range, std::vector<float> rgb) {
  const auto rasters = output_rasters(diffusion_with(range), "image", f32(std::move(rgb), {1, 3, 1, 1}));
  EXPECT_EQ(rasters.size(), 1u);
  return rasters.at(0).at(0).pixels;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ImageOutput, DeclaredRangeMapsToPixels) {
  using P = std::vector<std::uint8_t>;
  EXPECT_EQ(one_pixel("zero_to_one", {0.0f, 0.5f, 1.0f}), (P{0, 128, 255}));
  EXPECT_EQ(one_pixel("negative_one_to_one", {0.0f, 0.5f, 1.0f}), (P{128, 191, 255}));
  EXPECT_EQ(one_pixel("zero_to_255", {0.0f, 127.5f, 255.0f}), (P{0, 128, 255}));
}

TEST(ImageOutput, NumericalNoiseAtTheBoundsIsClampedNotRefused) {
  using P = std::vector<std::uint8_t>;
  EXPECT_EQ(one_pixel("zero_to_one", {-5e-6f, 0.5f, 1.0f + 5e-6f}), (P{0, 128, 255}));
  EXPECT_EQ(one_pixel("negative_one_to_one", {-1.0f - 5e-6f, 0.0f, 1.0f + 5e-6f}), (P{0, 128, 255}));
}

TEST(ImageOutput, ValuesOutsideTheRangeAreErrorsNamingOutputValueAndRange) {
  const auto msg = error_of([] { one_pixel("zero_to_one", {0.5f, -1e-3f, 1.0f}); });
  EXPECT_NE(msg.find("outputs.image"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-0.001"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, 1, 0, 0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("zero_to_one"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { one_pixel("negative_one_to_one", {-1.001f, 0, 1}); }).find("negative_one_to_one"),
            std::string::npos);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_NE(error_of([&] { one_pixel("zero_to_one", {0, nan, 0}); }).find("nan"), std::string::npos);
  EXPECT_NE(error_of([&] { one_pixel("zero_to_255", {0, 0, inf}); }).find("inf"), std::string::npos);
}

TEST(ImageOutput, ChannelLastLayoutFromTheContract) {
  metadata::Workflow wf = diffusion_with("zero_to_one");
  for (auto& [name, o] : wf.outputs)
    if (name == "image") std::swap((*o.contract.shape)[1], (*o.contract.shape)[3]);  // [batch, width, height, 3]
  // [1, H=1, W=2, 3]: pixel 0 red, pixel 1 blue.
  const auto rasters = output_rasters(wf, "image", f32({1, 0, 0, 0, 0, 1}, {1, 1, 2, 3}));
  const auto& r = rasters.at(0).at(0);
  EXPECT_EQ((std::vector<std::uint32_t>{r.width, r.height, r.channels}), (std::vector<std::uint32_t>{2, 1, 3}));
  EXPECT_EQ(r.pixels, (std::vector<std::uint8_t>{255, 0, 0, 0, 0, 255}));
}

TEST(ImageOutput, ChannelFirstPlanesInterleave) {
  // [1, 3, H=1, W=2]: R plane {1, 0}, G {0, 0}, B {0, 1}.
  const auto r = output_rasters(diffusion_with("zero_to_one"), "image", f32({1, 0, 0, 0, 0, 1}, {1, 3, 1, 2}));
  EXPECT_EQ(r.at(0).at(0).pixels, (std::vector<std::uint8_t>{255, 0, 0, 0, 0, 255}));
}

TEST(ImageOutput, PngRoundTripsThroughTheDecoder) {
  std::vector<float> v;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 6; ++i) v.push_back(static_cast<float>(c * 6 + i) / 17.0f);
  const auto pngs = encode_png_output(diffusion_with("zero_to_one"), "image", f32(v, {1, 3, 2, 3}));
  ASSERT_EQ(pngs.size(), 1u);
  const auto back = media::decode_image(pngs[0], "image.png");
  ASSERT_EQ(back.width, 3u);
  ASSERT_EQ(back.height, 2u);
  ASSERT_EQ(back.channels, 3u);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 3; ++x)
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(back.pixels[(y * 3 + x) * 3 + c], std::round(v[c * 6 + y * 3 + x] * 255.0f));
}

TEST(ImageOutput, BadShapesAreRefusedNamingTheOutput) {
  const auto wf = diffusion_with("zero_to_one");
  EXPECT_NE(error_of([&] { output_rasters(wf, "image", f32({0, 0}, {1, 2})); }).find("outputs.image"),
            std::string::npos);
  EXPECT_NE(error_of([&] { output_rasters(wf, "image", f32(std::vector<float>(12), {1, 3, 2, 2, 1})); }).find("one frame"),
            std::string::npos);
  EXPECT_NE(error_of([&] { output_rasters(wf, "latent", f32({0}, {1, 1, 1, 1})); }).find("role 'tensor'"),
            std::string::npos);
}

// The diffusion workflow with its `image` output turned into a video [batch, 3, frames, H, W].
metadata::Workflow video_workflow() {
  metadata::Workflow wf = testing::program("diffusion").workflow();
  for (auto& [name, o] : wf.outputs)
    if (name == "image") {
      o.role = "video";
      o.value_range.reset();
      o.contract.rank = 5;
      o.contract.shape->insert(o.contract.shape->begin() + 2, metadata::ShapeDim{-1, "frames"});
    }
  return wf;
}

TEST(VideoOutput, FramesAlongTheirAxisBecomeNumberedFiles) {
  const auto wf = video_workflow();
  // [2 rows, 3, 2 frames, 1, 1]: frame f of row r has R = (r*2+f)/4 in [-1, 1] units.
  std::vector<float> v(2 * 3 * 2, -1.0f);
  for (int r = 0; r < 2; ++r)
    for (int f = 0; f < 2; ++f) v[r * 6 + f] = -1.0f + 2.0f * static_cast<float>(r * 2 + f) / 4.0f;
  RunResult result;
  result.outputs.emplace("image", f32(v, {2, 3, 2, 1, 1}));
  const auto files = media_files(wf, result);
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"image.row.0/frame-0001.png", "image.row.0/frame-0002.png",
                                             "image.row.1/frame-0001.png", "image.row.1/frame-0002.png"}));
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto px = media::decode_image(files[i].bytes, files[i].path);
    EXPECT_EQ(px.pixels.at(0), static_cast<std::uint8_t>(std::round(static_cast<float>(i) / 4.0f * 255.0f))) << i;
  }
  RunResult one;
  one.outputs.emplace("image", f32(std::vector<float>(3 * 1 * 2 * 2, 0.0f), {1, 3, 1, 2, 2}));
  EXPECT_EQ(media_files(wf, one).at(0).path, "image/frame-0001.png");
}

TEST(VideoOutput, VideoFramesAreCheckedInsideMinusOneToOne) {
  const auto msg = error_of([] { output_rasters(video_workflow(), "image", f32({0, 0, 1.5f}, {1, 3, 1, 1, 1})); });
  EXPECT_NE(msg.find("1.5"), std::string::npos) << msg;
  EXPECT_NE(msg.find("negative_one_to_one"), std::string::npos) << msg;
}

TEST(VideoOutput, AnAppendAlongAnotherAxisIsRefusedNamingTheEmit) {
  metadata::Workflow wf = video_workflow();
  metadata::EmitStep emit{"vae.image", "image", "append", std::nullopt, std::nullopt, 3};
  wf.steps.push_back(metadata::Step{"pipeline.workflow.steps[9]", emit});
  const auto msg = error_of([&] { output_rasters(wf, "image", f32(std::vector<float>(3), {1, 3, 1, 1, 1})); });
  EXPECT_NE(msg.find("pipeline.workflow.steps[9].axis"), std::string::npos) << msg;
  EXPECT_NE(msg.find("axis 2"), std::string::npos) << msg;
}

TEST(MediaFiles, ImageOutputsNamedAfterTheOutput) {
  const auto wf = diffusion_with("zero_to_one");
  RunResult result;
  result.outputs.emplace("image", f32(std::vector<float>(2 * 3 * 2 * 2, 0.25f), {2, 3, 2, 2}));
  result.outputs.emplace("latent", f32(std::vector<float>(4, 9.0f), {1, 4, 1, 1}));  // role tensor: no file
  const auto files = media_files(wf, result);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "image.row.0.png");
  EXPECT_EQ(files[1].path, "image.row.1.png");
  RunResult one;
  one.outputs.emplace("image", f32(std::vector<float>(3 * 2 * 2, 0.25f), {1, 3, 2, 2}));
  EXPECT_EQ(media_files(wf, one).at(0).path, "image.png");
}

}  // namespace
}  // namespace ogai::workflow
