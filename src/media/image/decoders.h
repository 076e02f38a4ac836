// The per-format decoders behind decode_image() (decode.h). Each reads one complete file from
// memory, checks the header's canvas against `limits` before allocating pixels, and throws
// kInvalidArgument naming `what` (the input) on a truncated or corrupt file. They return the
// file's own mode (L, LA, RGB or RGBA; CMYK JPEGs are converted to RGB as Pillow does) and the
// EXIF orientation tag when the file carries one (1 when absent); nothing is rotated here.
//
// Libraries (docs/media.md): libpng (classic API: 16-bit samples keep their high byte and no
// gamma is applied, as Pillow does), libjpeg-turbo (+ libexif for the APP1 orientation), libwebp,
// giflib (first frame only), stb_image (BMP only). Thread-safe: no shared state.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "media/image/limits.h"
#include "media/image/raster.h"

namespace ogai::media {

struct Decoded {
  Raster raster;
  int orientation = 1;  // EXIF tag 0x0112: 1 (as stored) .. 8
};

Decoded decode_png(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits);
Decoded decode_jpeg(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits);
Decoded decode_webp(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits);
Decoded decode_gif(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits);
Decoded decode_bmp(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits);

}  // namespace ogai::media
