// Pillow's Image.resize(size, filter) on an 8-bit raster, equal to Pillow (9.x-11.x, the
// algorithm of its libImaging/Resample.c and Geometry.c) to the last bit:
//  - kNearest: Pillow's affine scale; source x = floor((x + 0.5) * in/out), accumulated in double
//    from x = 0 as Pillow steps it.
//  - the convolution filters (box, bilinear, hamming, bicubic a = -0.5, lanczos a = 3): separable,
//    horizontal pass first into an 8-bit intermediate, then vertical. Each output sample's
//    weights come from the filter sampled at (i - center + 0.5) / scale with the support widened
//    by the downscale factor (antialiasing), normalised to sum 1 in double, then rounded to
//    fixed point with 22 fractional bits (away from zero); the sum starts at half a unit and is
//    shifted back and clipped to 0..255.
// Channels are resampled independently: alpha is not premultiplied (Pillow premultiplies LA and
// RGBA first), so pass L or RGB rasters. Sizes are the caller's to bound. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "media/image/raster.h"

namespace ogai::media {

enum class ResizeFilter { kNearest, kBox, kBilinear, kHamming, kBicubic, kLanczos };

// "nearest", "box", "bilinear", "hamming", "bicubic", "lanczos" / "lanczos3"; else nullopt.
std::optional<ResizeFilter> parse_resize_filter(std::string_view name);

// A copy when the size is unchanged (as Pillow returns self.copy()).
Raster resize(const Raster& in, std::uint32_t width, std::uint32_t height, ResizeFilter filter);

}  // namespace ogai::media
