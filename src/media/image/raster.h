// An 8-bit raster image: `width` x `height` pixels of `channels` interleaved samples (1 = L,
// 2 = LA, 3 = RGB, 4 = RGBA), rows packed without padding: pixels is [height, width, channels].
// A plain value type that owns its pixels; what the decoders return and the resizer reads.
//
// to_rgb() is Pillow's Image.convert("RGB") for these modes: grey is replicated, alpha is
// dropped (not composited).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ogai::media {

struct Raster {
  std::uint32_t width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> pixels;  // [height, width, channels]

  std::size_t row_bytes() const { return static_cast<std::size_t>(width) * channels; }
  const std::uint8_t* row(std::uint32_t y) const { return pixels.data() + y * row_bytes(); }
  std::uint8_t* row(std::uint32_t y) { return pixels.data() + y * row_bytes(); }
};

// A raster of the given size with zeroed pixels (the caller checked the budget first).
Raster make_raster(std::uint32_t width, std::uint32_t height, std::uint32_t channels);

// Pillow's convert("RGB") from L, LA, RGB or RGBA.
Raster to_rgb(const Raster& in);

}  // namespace ogai::media
