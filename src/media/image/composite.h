// Transparent images flattened onto an opaque colour as Pillow's
// Image.alpha_composite(Image.new("RGBA", size, background), image.convert("RGBA")).convert("RGB")
// does (Phi-3-V's processor converts images to RGB this way): an LA or RGBA raster -> RGB, each
// channel (src * a + background * (255 - a)) / 255 in Pillow's fixed point (7 fractional bits,
// division by 255 as ((x >> 8) + x) >> 8, rounded); a fully transparent pixel is the background.
// L and RGB rasters have no alpha and are only converted (raster.h's to_rgb). Pure; thread-safe.
#pragma once

#include <array>
#include <cstdint>

#include "media/image/raster.h"

namespace ogai::media {

Raster composite_rgb(const Raster& in, const std::array<std::uint8_t, 3>& background);

}  // namespace ogai::media
