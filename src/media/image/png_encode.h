// Encoding an 8-bit raster as a PNG file in memory through libpng's simplified write API
// (png_image_write_to_memory: no setjmp, no callbacks). Channels 1 (grey), 2 (grey + alpha),
// 3 (RGB), 4 (RGBA); 8 bits per sample, no gamma or colour chunks, so the bytes depend on the
// pixels only. A raster whose pixels do not match its size, a zero or huge size, or a failure
// inside libpng is refused (ogai::Error naming `where`). Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "media/image/raster.h"

namespace ogai::media {

std::vector<std::uint8_t> encode_png(const Raster& raster, const std::string& where);

}  // namespace ogai::media
