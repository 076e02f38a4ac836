// decode_image(): one encoded image (PNG, JPEG, WebP, GIF first frame, BMP; the format is read
// from the signature) to an 8-bit raster in the file's mode (L, LA, RGB or RGBA), with the EXIF
// orientation applied as Pillow's ImageOps.exif_transpose does. Budgets (limits.h) are checked
// from the header before decoding. Every failure is kInvalidArgument naming `what` (the input,
// e.g. "request.image"): unknown content, truncated or corrupt data, a canvas over the budget.
// Thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "media/image/limits.h"
#include "media/image/raster.h"

namespace ogai::media {

Raster decode_image(std::span<const std::uint8_t> bytes, const std::string& what, const ImageLimits& limits = {});

}  // namespace ogai::media
