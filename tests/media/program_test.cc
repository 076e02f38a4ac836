// ImageProgram (preprocessing.image) end to end: a Qwen2-VL program (smart resize to multiples of
// 28 within 3136..1003520 pixels, bicubic, rescale 1/255, CLIP normalisation, 14-pixel patches,
// temporal 2, merge 2) against Hugging Face's Qwen2VLImageProcessor steps computed with Pillow +
// NumPy in pillow_cases.py; the output kinds, dtypes and orders; parse errors naming the path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "base/error.h"
#include "base/half.h"
#include "cases.h"
#include "media/image/decode.h"
#include "media/image/program.h"
#include "media/image/resize.h"
#include "media/image/target_size.h"

namespace ogai::media {
namespace {

using testing::cases_dir;
using testing::manifest;
using testing::read_bytes;

nlohmann::json qwen_program(const std::string& pixels_dtype = "float32") {
  return nlohmann::json::parse(R"({
    "transforms": [
      {"op": "decode_rgb", "outputs": ["img"]},
      {"op": "resize", "mode": "pixel_area", "interpolation": "bicubic", "min_pixels": 3136,
       "max_pixels": 1003520, "size_multiple": 28, "inputs": ["img"], "outputs": ["sized"]},
      {"op": "rescale", "scale": 0.00392156862745098, "inputs": ["sized"], "outputs": ["scaled"]},
      {"op": "normalize", "mean": [0.48145466, 0.4578275, 0.40821073],
       "std": [0.26862954, 0.26130258, 0.27577711], "inputs": ["scaled"], "outputs": ["normal"]},
      {"op": "patchify", "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2,
       "inputs": ["normal"], "outputs": ["patches"]},
      {"op": "emit_grid_coordinates", "inputs": ["patches"], "outputs": ["grid"]},
      {"op": "emit_original_size", "inputs": ["img"], "outputs": ["orig"]},
      {"op": "emit_transformed_size", "inputs": ["sized"], "outputs": ["size"]}
    ],
    "outputs": [
      {"name": "image.pixel_values", "content": "pixels", "dtype": ")" + pixels_dtype + R"(", "source": "patches"},
      {"name": "image.grid_thw", "content": "grid_dimensions", "dtype": "int64", "source": "grid"},
      {"name": "image.original_size", "content": "original_size", "dtype": "int32", "source": "orig"},
      {"name": "image.transformed_size", "content": "transformed_size", "dtype": "int64", "source": "size"}
    ]})");
}

const ProgramTensor& named(const std::vector<ProgramTensor>& out, const std::string& name) {
  for (const auto& t : out)
    if (t.name == name) return t;
  throw std::runtime_error("no output " + name);
}

template <class T>
std::vector<T> values(const ProgramTensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

TEST(MediaProgram, QwenPatchesEqualHuggingFaceStepsInPillowAndNumpy) {
  const auto program = ImageProgram::parse(qwen_program(), "preprocessing.image");
  const auto& cases = manifest()["qwen"];
  ASSERT_GE(cases.size(), 6u);
  for (const auto& c : cases) {
    const std::string file = c["file"];
    SCOPED_TRACE(file);
    const auto out = program.run(read_bytes(cases_dir() / file), file);
    const auto& pixels = named(out, "image.pixel_values");
    const std::int64_t rows = c["rows"], feature = c["feature"];
    ASSERT_EQ(pixels.shape, (std::vector<std::int64_t>{rows, feature}));
    const auto got = values<float>(pixels);
    const auto want_bytes = read_bytes(cases_dir() / (file + ".f32"));
    std::vector<float> want(want_bytes.size() / 4);
    std::memcpy(want.data(), want_bytes.data(), want_bytes.size());
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, double(std::fabs(got[i] - want[i])));
    EXPECT_LE(worst, 1e-5) << "largest difference from the NumPy pipeline";
    EXPECT_EQ(values<std::int64_t>(named(out, "image.grid_thw")), c["grid"].get<std::vector<std::int64_t>>());
  }
}

TEST(MediaProgram, OneByOneRedPngGivesFourPatchesOfThreeChannelBlocks) {
  // The vlm fixture's program shape: pixel_area 224..224, multiple 14, normalise 0.5 / 0.5, patches
  // of 14 x temporal 2, merge 1.
  auto j = nlohmann::json::parse(R"({
    "transforms": [
      {"op": "decode_rgb"},
      {"op": "resize", "mode": "pixel_area", "interpolation": "bicubic", "min_pixels": 224, "max_pixels": 224,
       "size_multiple": 14},
      {"op": "rescale", "scale": 0.00392156862745098},
      {"op": "normalize", "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5]},
      {"op": "patchify", "patch_size": 14, "temporal_patch_size": 2, "flatten": true},
      {"op": "emit_grid_coordinates"}
    ],
    "outputs": [
      {"name": "pixel_values", "content": "pixels", "dtype": "float32"},
      {"name": "grid_thw", "content": "grid_dimensions", "dtype": "int64"}
    ]})");
  const auto out = ImageProgram::parse(j, "preprocessing.image").run(read_bytes(cases_dir() / "qwen_red1x1.png"), "red");
  const auto& pixels = named(out, "pixel_values");
  ASSERT_EQ(pixels.shape, (std::vector<std::int64_t>{4, 1176}));
  const auto v = values<float>(pixels);
  for (std::size_t row = 0; row < 4; ++row)
    for (std::size_t i = 0; i < 1176; ++i)  // [R x 2 frames, G x 2, B x 2] of 196 values each
      ASSERT_EQ(v[row * 1176 + i], i < 392 ? 1.0f : -1.0f) << row << "," << i;
  EXPECT_EQ(values<std::int64_t>(named(out, "grid_thw")), (std::vector<std::int64_t>{1, 2, 2}));
}

TEST(MediaProgram, HalfPrecisionOutputsAndSizes) {
  const auto bytes = read_bytes(cases_dir() / "qwen_photo.png");  // 97 x 61
  const auto f32 = ImageProgram::parse(qwen_program("float32"), "p").run(bytes, "photo");
  for (const char* dtype : {"float16", "bfloat16"}) {
    SCOPED_TRACE(dtype);
    const auto out = ImageProgram::parse(qwen_program(dtype), "p").run(bytes, "photo");
    const auto& half = named(out, "image.pixel_values");
    EXPECT_EQ(half.dtype, std::string(dtype) == "float16" ? DataType::kFloat16 : DataType::kBfloat16);
    const auto full = values<float>(named(f32, "image.pixel_values"));
    const auto bits = values<std::uint16_t>(half);
    ASSERT_EQ(bits.size(), full.size());
    for (std::size_t i = 0; i < bits.size(); ++i)
      ASSERT_EQ(bits[i], half.dtype == DataType::kFloat16 ? float_to_half(full[i]) : float_to_bfloat16(full[i]));
  }
  EXPECT_EQ(values<std::int32_t>(named(f32, "image.original_size")), (std::vector<std::int32_t>{61, 97}));
  EXPECT_EQ(values<std::int64_t>(named(f32, "image.transformed_size")), (std::vector<std::int64_t>{56, 84}));
}

TEST(MediaProgram, PixelAreaRoundsTiesToEven) {
  // 42 = 1.5 x 28 rounds to 56 (2, even); 70 = 2.5 x 28 rounds to 56 too.
  EXPECT_EQ(round_to_multiple_ties_even(42, 28), 56u);
  EXPECT_EQ(round_to_multiple_ties_even(70, 28), 56u);
  EXPECT_EQ(round_to_multiple_ties_even(14, 28), 0u);
  const Size s = pixel_area_size({70, 42}, 3136, 1003520, 28, 1u << 30, "x");
  EXPECT_EQ(s.width, 56u);  // 56 x 56 = 3136 is not under min_pixels: no growth
  EXPECT_EQ(s.height, 56u);
  const Size grown = pixel_area_size({1, 1}, 224, 224, 14, 1u << 30, "x");  // sqrt(224) ~ 14.97 -> 2 x 14
  EXPECT_EQ(grown.width, 28u);
  EXPECT_EQ(grown.height, 28u);
}

TEST(MediaProgram, PatchifyOrdersAndPadding) {
  auto j = nlohmann::json::parse(R"({
    "transforms": [
      {"op": "decode", "outputs": ["img"]},
      {"op": "resize", "mode": "stretch", "size": {"width": 4, "height": 2}, "interpolation": "nearest",
       "inputs": ["img"], "outputs": ["small"]},
      {"op": "patchify", "patch_size": 1, "channel_order": "channels_last", "patch_order": "raster",
       "coordinate_order": "xy", "merge_size": 2, "inputs": ["small"], "outputs": ["p"]},
      {"op": "emit_patch_coordinates", "inputs": ["p"], "outputs": ["c"]},
      {"op": "pad", "target_length": 10, "pad_value": -7, "inputs": ["p", "c"], "outputs": ["pp", "pc"]},
      {"op": "emit_validity_mask", "inputs": ["pp"], "outputs": ["m"]}
    ],
    "outputs": [
      {"name": "pixels", "content": "pixels", "dtype": "float32", "source": "pp"},
      {"name": "coords", "content": "patch_coordinates", "dtype": "int64", "source": "pc"},
      {"name": "mask", "content": "validity_mask", "dtype": "bool", "source": "m"}
    ]})");
  const auto out = ImageProgram::parse(j, "p").run(read_bytes(cases_dir() / "photo.png"), "photo");
  const auto& px = named(out, "pixels");
  EXPECT_EQ(px.shape, (std::vector<std::int64_t>{1, 10, 3}));
  const auto pv = values<float>(px);
  for (std::size_t i = 24; i < 30; ++i) EXPECT_EQ(pv[i], -7.0f);
  const auto coords = values<std::int64_t>(named(out, "coords"));
  // raster order, (x, y): (0,0) (1,0) (2,0) (3,0) (0,1) ... then the -1 sentinel.
  EXPECT_EQ(std::vector<std::int64_t>(coords.begin(), coords.begin() + 10),
            (std::vector<std::int64_t>{0, 0, 1, 0, 2, 0, 3, 0, 0, 1}));
  EXPECT_EQ(coords[16], -1);
  const auto& mask = named(out, "mask");
  EXPECT_EQ(mask.shape, (std::vector<std::int64_t>{1, 10}));
  EXPECT_EQ(mask.data, (std::vector<std::uint8_t>{1, 1, 1, 1, 1, 1, 1, 1, 0, 0}));
}

TEST(MediaProgram, ParseErrorsNameThePath) {
  auto expect_error = [](const std::string& text, const std::string& where, const std::string& detail) {
    try {
      ImageProgram::parse(nlohmann::json::parse(text), "preprocessing.image");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(detail), std::string::npos) << e.what();
    }
  };
  const std::string out = R"("outputs": [{"name": "p", "content": "pixels", "dtype": "float32"}])";
  expect_error(R"({"transforms": [{"op": "decode"}, {"op": "sharpen"}], )" + out + "}",
               "preprocessing.image.transforms[1].op", "sharpen");
  expect_error(R"({"transforms": [{"op": "decode"}, {"op": "resize", "mode": "pixel_area", "min_pixels": 9,
               "max_pixels": 4, "size_multiple": 2}], )" + out + "}",
               "preprocessing.image.transforms[1]", "min_pixels <= max_pixels");
  expect_error(R"({"transforms": [{"op": "decode"}, {"op": "normalize", "mean": [0, 0], "std": [1, 1, 1]}], )" + out +
                   "}",
               "transforms[1].mean", "3 numbers");
  expect_error(R"({"transforms": [{"op": "decode"}, {"op": "resize", "size": 4, "interpolation": "cubic"}], )" + out +
                   "}",
               "transforms[1].interpolation", "cubic");
  expect_error(R"({"transforms": [{"op": "decode"}], "outputs": [{"name": "p", "content": "pixels",
               "dtype": "int64"}]})",
               "outputs[0].dtype", "float32");
  expect_error(R"({"transforms": [{"op": "decode"}, {"op": "emit_grid_coordinates"}], )" + out + "}",
               "transforms[1].inputs", "wrong kind");
}

}  // namespace
}  // namespace ogai::media

namespace ogai::media {
namespace {

using testing::cases_dir;
using testing::read_bytes;

// The float [3, H, W] planes of an RGB raster, as the program makes them before value ops.
std::vector<float> planes_of(const Raster& rgb) {
  const std::size_t plane = static_cast<std::size_t>(rgb.width) * rgb.height;
  std::vector<float> out(plane * 3);
  for (std::size_t i = 0; i < plane; ++i)
    for (std::size_t c = 0; c < 3; ++c) out[c * plane + i] = rgb.pixels[i * 3 + c];
  return out;
}

TEST(MediaProgramTile, AnyresPicksTheGridKeepingMostPixelsAndPrependsTheThumbnail) {
  // 333 x 251 at tile 112: 2x2 keeps 224 x 168 source pixels, more than any other grid within 6.
  auto j = nlohmann::json::parse(R"({
    "transforms": [
      {"op": "decode_rgb", "outputs": ["img"]},
      {"op": "resize", "mode": "stretch", "size": 112, "interpolation": "bilinear", "inputs": ["img"], "outputs": ["r"]},
      {"op": "tile", "tile_size": 112, "max_tiles": 6, "include_thumbnail": true, "thumbnail_order": "prepend",
       "inputs": ["img"], "outputs": ["tiles"]},
      {"op": "emit_transformed_size", "inputs": ["tiles"], "outputs": ["size"]},
      {"op": "emit_validity_mask", "inputs": ["tiles"], "outputs": ["mask"]}
    ],
    "outputs": [
      {"name": "pixels", "content": "pixels", "dtype": "float32", "source": "tiles"},
      {"name": "size", "content": "transformed_size", "dtype": "int64", "source": "size"},
      {"name": "mask", "content": "validity_mask", "dtype": "int64", "source": "mask"}
    ]})");
  const auto bytes = read_bytes(cases_dir() / "qwen_wide.png");
  const auto out = ImageProgram::parse(j, "p").run(bytes, "wide");
  const auto& px = named(out, "pixels");
  ASSERT_EQ(px.shape, (std::vector<std::int64_t>{5, 3, 112, 112}));
  const auto v = values<float>(px);
  const Raster img = to_rgb(decode_image(bytes, "wide"));
  const auto thumb = planes_of(resize(img, 112, 112, ResizeFilter::kBilinear));  // the resize's filter
  EXPECT_TRUE(std::equal(thumb.begin(), thumb.end(), v.begin()));
  const Raster canvas = resize(img, 224, 224, ResizeFilter::kBilinear);
  Raster bottom_right = make_raster(112, 112, 3);
  for (std::uint32_t y = 0; y < 112; ++y)
    std::memcpy(bottom_right.row(y), canvas.row(112 + y) + 112 * 3, 112 * 3);
  const auto last = planes_of(bottom_right);
  EXPECT_TRUE(std::equal(last.begin(), last.end(), v.begin() + 4 * 3 * 112 * 112));
  EXPECT_EQ(values<std::int64_t>(named(out, "size")), (std::vector<std::int64_t>{224, 224}));
  EXPECT_EQ(values<std::int64_t>(named(out, "mask")), (std::vector<std::int64_t>(5, 1)));
}

TEST(MediaProgramTile, DynamicHdPadsTheCanvasMasksThePaddingAndStacksTilesForPatches) {
  // 333 x 251 at tile 112: 3 x 3 tiles exceed max 6; 3 x 2 is the closest aspect (1.5 vs 1.33).
  // The image fills the canvas height: 297 x 224, so 39 columns of padding = 2 mask cells of 14.
  auto j = nlohmann::json::parse(R"({
    "transforms": [
      {"op": "decode_rgb", "outputs": ["img"]},
      {"op": "tile", "mode": "dynamic_hd", "tile_size": 112, "max_tiles": 6, "mask_patch_size": 14,
       "canvas_pad_value": 255, "include_thumbnail": true, "thumbnail_order": "append",
       "thumbnail_interpolation": "bilinear", "inputs": ["img"], "outputs": ["tiles"]},
      {"op": "emit_validity_mask", "inputs": ["tiles"], "outputs": ["mask"]},
      {"op": "emit_transformed_size", "inputs": ["tiles"], "outputs": ["size"]},
      {"op": "patchify", "patch_size": 14, "inputs": ["tiles"], "outputs": ["patches"]},
      {"op": "emit_grid_coordinates", "inputs": ["patches"], "outputs": ["grid"]},
      {"op": "emit_patch_coordinates", "inputs": ["patches"], "outputs": ["coords"]}
    ],
    "outputs": [
      {"name": "pixels", "content": "pixels", "dtype": "float32", "source": "patches"},
      {"name": "mask", "content": "validity_mask", "dtype": "int64", "source": "mask"},
      {"name": "size", "content": "transformed_size", "dtype": "int64", "source": "size"},
      {"name": "grid", "content": "grid_dimensions", "dtype": "int64", "source": "grid"},
      {"name": "coords", "content": "patch_coordinates", "dtype": "int64", "source": "coords"}
    ]})");
  const auto out = ImageProgram::parse(j, "p").run(read_bytes(cases_dir() / "qwen_wide.png"), "wide");
  EXPECT_EQ(values<std::int64_t>(named(out, "size")), (std::vector<std::int64_t>{224, 336}));
  const auto& mask = named(out, "mask");
  ASSERT_EQ(mask.shape, (std::vector<std::int64_t>{7, 8, 8}));
  const auto m = values<std::int64_t>(mask);
  EXPECT_EQ(std::vector<std::int64_t>(m.begin() + 2 * 64, m.begin() + 2 * 64 + 8),
            (std::vector<std::int64_t>{1, 1, 1, 1, 1, 1, 0, 0}));  // tile 2: the right column of tiles
  EXPECT_EQ(std::vector<std::int64_t>(m.begin(), m.begin() + 8), (std::vector<std::int64_t>(8, 1)));
  EXPECT_EQ(std::vector<std::int64_t>(m.begin() + 6 * 64, m.end()), (std::vector<std::int64_t>(64, 1)));  // thumbnail
  EXPECT_EQ(named(out, "pixels").shape, (std::vector<std::int64_t>{7 * 64, 588}));
  EXPECT_EQ(values<std::int64_t>(named(out, "grid")), (std::vector<std::int64_t>{7, 8, 8}));
  const auto coords = values<std::int64_t>(named(out, "coords"));
  EXPECT_EQ(coords[64 * 2], 8);  // tile 1's first patch sits 8 patch rows down
  EXPECT_EQ(coords[64 * 2 + 1], 0);
  // The padding is canvas_pad_value: tile 2's last pixel column (x = 335 > 297) is 255.
  const auto px = values<float>(named(out, "pixels"));
  EXPECT_EQ(px[(2 * 64 + 7) * 588 + 13], 255.0f);
}

}  // namespace
}  // namespace ogai::media
