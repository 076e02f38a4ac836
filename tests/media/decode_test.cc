// decode_image() against Pillow: every format and mode pillow_cases.py writes, EXIF orientations
// 1..8 on JPEG, PNG and WebP, each compared byte for byte with
// ImageOps.exif_transpose(Image.open(f)).convert("RGB").
#include <gtest/gtest.h>

#include "cases.h"
#include "media/image/decode.h"

namespace ogai::media {
namespace {

using testing::cases_dir;
using testing::manifest;
using testing::read_bytes;

TEST(MediaDecode, EqualsPillowForEveryFormatAndMode) {
  const auto& cases = manifest()["decode"];
  ASSERT_GE(cases.size(), 40u);
  for (const auto& c : cases) {
    const std::string file = c["file"];
    SCOPED_TRACE(file);
    const auto bytes = read_bytes(cases_dir() / file);
    const Raster rgb = to_rgb(decode_image(bytes, file));
    EXPECT_EQ(rgb.width, c["width"].get<std::uint32_t>());
    EXPECT_EQ(rgb.height, c["height"].get<std::uint32_t>());
    const auto expected = read_bytes(cases_dir() / c["expected"].get<std::string>());
    ASSERT_EQ(rgb.pixels.size(), expected.size());
    std::size_t differ = 0;
    int worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const int d = std::abs(int(rgb.pixels[i]) - int(expected[i]));
      differ += d != 0;
      worst = std::max(worst, d);
    }
    EXPECT_EQ(differ, 0u) << "samples differ from Pillow, worst by " << worst;
  }
}

TEST(MediaDecode, KeepsTheFileMode) {
  EXPECT_EQ(decode_image(read_bytes(cases_dir() / "gray.png"), "gray.png").channels, 1u);
  EXPECT_EQ(decode_image(read_bytes(cases_dir() / "la.png"), "la.png").channels, 2u);
  EXPECT_EQ(decode_image(read_bytes(cases_dir() / "rgba.png"), "rgba.png").channels, 4u);
  EXPECT_EQ(decode_image(read_bytes(cases_dir() / "gray.jpg"), "gray.jpg").channels, 1u);
  EXPECT_EQ(decode_image(read_bytes(cases_dir() / "q90.jpg"), "q90.jpg").channels, 3u);
}

TEST(MediaDecode, OrientationSwapsTheSidesFrom5On) {
  const Raster upright = decode_image(read_bytes(cases_dir() / "orient1.png"), "orient1");
  const Raster turned = decode_image(read_bytes(cases_dir() / "orient6.png"), "orient6");
  EXPECT_EQ(upright.width, turned.height);
  EXPECT_EQ(upright.height, turned.width);
  EXPECT_NE(upright.width, upright.height);
}

}  // namespace
}  // namespace ogai::media
