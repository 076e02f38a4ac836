// EXIF orientation (tag 0x0112): read through libexif from an EXIF block, and applied to a
// raster as Pillow's ImageOps.exif_transpose does (2 mirror, 3 rotate 180, 4 flip, 5 transpose,
// 6 rotate 270 (clockwise), 7 transverse, 8 rotate 90 (counter-clockwise)). A missing, unreadable
// or out-of-range tag reads as 1 (leave as stored), as Pillow treats it. Thread-safe.
#pragma once

#include <cstdint>
#include <span>

#include "media/image/raster.h"

namespace ogai::media {

// `block` is a JPEG APP1 payload ("Exif\0\0" + TIFF) or a bare TIFF block (PNG eXIf, WebP EXIF).
int exif_orientation_tiff(std::span<const std::uint8_t> block);

// The raster as it should be displayed (a copy; orientation 1 returns it unchanged).
Raster apply_orientation(Raster in, int orientation);

}  // namespace ogai::media
