// patchify() of an 8-bit raster through a channel table, channels last: every value must be the
// table's entry for its sample, bit for bit, in patch raster order. Covers rescale tables (which
// patchify may compute by converting and multiplying instead of looking up; patchify.cc), per-channel
// scales, a normalize table (looked up), and a patch size that is not a multiple of 8.
#include <gtest/gtest.h>

#include <cstring>

#include "media/image/patchify.h"

namespace ogai::media {
namespace {

Raster test_raster(std::uint32_t width, std::uint32_t height) {
  Raster r = make_raster(width, height, 3);
  for (std::size_t i = 0; i < r.pixels.size(); ++i) r.pixels[i] = static_cast<std::uint8_t>((i * 37 + i / 7) % 256);
  return r;
}

ChannelTable scaling(const float (&scale)[3]) {
  ChannelTable t{};
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t v = 0; v < 256; ++v) t[c][v] = static_cast<float>(v) * scale[c];
  return t;
}

// The expected [count, p * p * 3] values looked up one by one.
std::vector<float> looked_up(const Raster& r, const ChannelTable& t, std::uint32_t p) {
  std::vector<float> out;
  for (std::uint32_t py = 0; py < r.height / p; ++py)
    for (std::uint32_t px = 0; px < r.width / p; ++px)
      for (std::uint32_t y = 0; y < p; ++y)
        for (std::uint32_t x = 0; x < p; ++x)
          for (std::uint32_t c = 0; c < 3; ++c) out.push_back(t[c][r.row(py * p + y)[(px * p + x) * 3 + c]]);
  return out;
}

void expect_bitwise(const Raster& r, const ChannelTable& t, std::uint32_t p) {
  PatchSpec spec;
  spec.patch = p, spec.channels_last = true, spec.raster_order = true, spec.xy = true;
  const Patches got = patchify(r, t, spec, "test");
  const std::vector<float> want = looked_up(r, t, p);
  ASSERT_EQ(got.count, static_cast<std::int64_t>((r.width / p) * (r.height / p)));
  ASSERT_EQ(got.bytes.size(), want.size() * sizeof(float));
  std::size_t differing = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(got.values() + i, &want[i], sizeof(float)) != 0) ++differing;
  EXPECT_EQ(differing, 0u) << "patch size " << p;
  ASSERT_EQ(got.coords.size(), static_cast<std::size_t>(got.count * 2));
  EXPECT_EQ(got.coords[2], 1);  // (x, y) of the second patch
  EXPECT_EQ(got.coords[3], 0);
}

TEST(MediaPatchify, ChannelsLastEqualsTheTableBitForBit) {
  const Raster r = test_raster(96, 48);
  expect_bitwise(r, scaling({0.00392156862745098f, 0.00392156862745098f, 0.00392156862745098f}), 16);
  expect_bitwise(r, scaling({0.00392156862745098f, 0.5f, 3.1f}), 16);
  expect_bitwise(r, scaling({0.00392156862745098f, 0.5f, 3.1f}), 8);
  expect_bitwise(test_raster(84, 42), scaling({0.00392156862745098f, 0.5f, 3.1f}), 14);
  ChannelTable normalized = scaling({0.00392156862745098f, 0.00392156862745098f, 0.00392156862745098f});
  const float mean[3] = {0.48145466f, 0.4578275f, 0.40821073f}, std[3] = {0.26862954f, 0.26130258f, 0.27577711f};
  for (std::size_t c = 0; c < 3; ++c)
    for (float& x : normalized[c]) x = (x - mean[c]) / std[c];
  expect_bitwise(r, normalized, 16);
}

}  // namespace
}  // namespace ogai::media
