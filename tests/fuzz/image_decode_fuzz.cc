// libFuzzer target: arbitrary bytes through decode_image (PNG, JPEG, WebP, GIF, BMP, EXIF) and,
// when they decode, a resize with each filter. The only acceptable failure is ogai::Error; any
// other exception, crash, leak or sanitizer report is a bug. Budgets are kept small so that a
// large declared canvas is refused, not allocated.
#include <cstddef>
#include <cstdint>
#include <span>

#include "media/image/decode.h"
#include "media/image/resize.h"
#include "ogai/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ogai::media::ImageLimits limits;
  limits.max_pixels = 1u << 20;
  limits.max_decoded_bytes = 4u << 20;
  try {
    const ogai::media::Raster image = ogai::media::decode_image(std::span(data, size), "fuzz", limits);
    const ogai::media::Raster rgb = ogai::media::to_rgb(image);
    const std::uint32_t w = 1 + rgb.width % 37, h = 1 + rgb.height % 29;
    for (auto f : {ogai::media::ResizeFilter::kNearest, ogai::media::ResizeFilter::kBicubic,
                   ogai::media::ResizeFilter::kLanczos})
      (void)ogai::media::resize(rgb, w, h, f);
  } catch (const ogai::Error&) {
  }
  return 0;
}
