// Resizing an RGB raster to a target box three ways (the `resize` modes with a fixed size, also
// used by `tile` for its canvas and thumbnail): stretch (to exactly W x H), crop (scale to cover
// the box, round, then take the centre) and pad (scale to fit inside, round, clamp to 1..W/H,
// centre on black). Resampling is resize() (Pillow's). Throws kInvalidArgument naming `what`
// when an intermediate exceeds limits.max_pixels. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>

#include "media/image/limits.h"
#include "media/image/raster.h"
#include "media/image/resize.h"

namespace ogai::media {

enum class FitMode { kStretch, kCrop, kPad };

Raster resize_fit(const Raster& rgb, FitMode mode, ResizeFilter filter, std::uint32_t width, std::uint32_t height,
                  const ImageLimits& limits, const std::string& what);

}  // namespace ogai::media
