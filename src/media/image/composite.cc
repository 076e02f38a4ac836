#include "media/image/composite.h"

namespace ogai::media {
namespace {

constexpr std::uint32_t kBits = 7;

std::uint32_t div255(std::uint32_t x) { return ((x >> 8) + x) >> 8; }

// One channel over an opaque background: Pillow's coefficients with the destination alpha 255
// (outa255 = 255 * 255, so coef1 = a << 7 and coef2 = (255 - a) << 7 exactly).
std::uint8_t over(std::uint32_t src, std::uint32_t bg, std::uint32_t a) {
  const std::uint32_t t = src * (a << kBits) + bg * ((255 - a) << kBits);
  return static_cast<std::uint8_t>(div255(t + (0x80u << kBits)) >> kBits);
}

}  // namespace

Raster composite_rgb(const Raster& in, const std::array<std::uint8_t, 3>& background) {
  if (in.channels != 2 && in.channels != 4) return to_rgb(in);
  Raster out = make_raster(in.width, in.height, 3);
  const std::size_t n = static_cast<std::size_t>(in.width) * in.height;
  const std::uint8_t* src = in.pixels.data();
  std::uint8_t* dst = out.pixels.data();
  for (std::size_t i = 0; i < n; ++i, src += in.channels, dst += 3) {
    const std::uint32_t a = src[in.channels - 1];
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint32_t v = src[in.channels == 2 ? 0 : c];
      dst[c] = a == 0 ? background[c] : over(v, background[c], a);
    }
  }
  return out;
}

}  // namespace ogai::media
