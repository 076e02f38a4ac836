// resize() against Pillow's Image.resize: gradients, noise, checkers and photo-like images of odd
// sizes (1x1 up to 333x251, portrait and landscape), RGB and L, scaled up and down by integer and
// fractional factors with nearest, box, bilinear, hamming, bicubic and lanczos. The bar is exact
// equality (the issue allows 1/255; Pillow's fixed-point arithmetic is reproduced bit for bit).
#include <gtest/gtest.h>

#include <cstring>

#include "cases.h"
#include "media/image/resize.h"

namespace ogai::media {
namespace {

using testing::cases_dir;
using testing::manifest;
using testing::read_bytes;

TEST(MediaResize, EqualsPillowBitForBit) {
  const auto& cases = manifest()["resize"];
  ASSERT_GE(cases.size(), 500u);
  std::size_t mismatched_cases = 0;
  for (const auto& c : cases) {
    const std::string expected_file = c["expected"];
    SCOPED_TRACE(expected_file);
    Raster src;
    src.width = c["width"];
    src.height = c["height"];
    src.channels = c["channels"];
    src.pixels = read_bytes(cases_dir() / c["source"].get<std::string>());
    ASSERT_EQ(src.pixels.size(), src.row_bytes() * src.height);
    const auto filter = parse_resize_filter(c["filter"].get<std::string>());
    ASSERT_TRUE(filter);
    const Raster out = resize(src, c["out_width"], c["out_height"], *filter);
    const auto expected = read_bytes(cases_dir() / expected_file);
    ASSERT_EQ(out.pixels.size(), expected.size());
    int worst = 0;
    for (std::size_t i = 0; i < expected.size(); ++i)
      worst = std::max(worst, std::abs(int(out.pixels[i]) - int(expected[i])));
    EXPECT_LE(worst, 1) << "more than 1/255 from Pillow";
    if (worst != 0) ++mismatched_cases;
  }
  EXPECT_EQ(mismatched_cases, 0u) << "cases not bit-exact with Pillow";
}

TEST(MediaResize, SameSizeIsACopyAndFiltersParse) {
  Raster r = make_raster(3, 2, 3);
  for (std::size_t i = 0; i < r.pixels.size(); ++i) r.pixels[i] = static_cast<std::uint8_t>(i * 13);
  EXPECT_EQ(resize(r, 3, 2, ResizeFilter::kLanczos).pixels, r.pixels);
  EXPECT_EQ(parse_resize_filter("lanczos3"), ResizeFilter::kLanczos);
  EXPECT_FALSE(parse_resize_filter("cubic"));
}

}  // namespace
}  // namespace ogai::media
