#include "media/image/fit.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "base/error.h"

namespace ogai::media {

Raster resize_fit(const Raster& in, FitMode mode, ResizeFilter filter, std::uint32_t width, std::uint32_t height,
                  const ImageLimits& limits, const std::string& what) {
  if (mode == FitMode::kStretch) return resize(in, width, height, filter);
  const std::uint32_t ch = in.channels;
  const double sx = static_cast<double>(width) / in.width, sy = static_cast<double>(height) / in.height;
  if (mode == FitMode::kCrop) {  // cover the target, then take its centre
    const double s = std::max(sx, sy);
    const auto rw = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::round(in.width * s)), width);
    const auto rh = std::max<std::uint64_t>(static_cast<std::uint64_t>(std::round(in.height * s)), height);
    if (rw * rh > limits.max_pixels)
      fail(ErrorCode::kInvalidArgument, what, "crop resize needs a {}x{} intermediate, over {} pixels", rw, rh,
           limits.max_pixels);
    const Raster big = resize(in, static_cast<std::uint32_t>(rw), static_cast<std::uint32_t>(rh), filter);
    Raster out = make_raster(width, height, ch);
    const std::size_t x0 = (rw - width) / 2, y0 = (rh - height) / 2;
    for (std::uint32_t y = 0; y < height; ++y)
      std::memcpy(out.row(y), big.row(static_cast<std::uint32_t>(y0 + y)) + x0 * ch, out.row_bytes());
    return out;
  }
  const double s = std::min(sx, sy);  // pad: fit inside the target, centred on black
  const auto rw = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::round(in.width * s)), 1, width);
  const auto rh = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::round(in.height * s)), 1, height);
  const Raster small = resize(in, static_cast<std::uint32_t>(rw), static_cast<std::uint32_t>(rh), filter);
  Raster out = make_raster(width, height, ch);
  const std::size_t x0 = (width - rw) / 2, y0 = (height - rh) / 2;
  for (std::uint32_t y = 0; y < small.height; ++y)
    std::memcpy(out.row(static_cast<std::uint32_t>(y0 + y)) + x0 * ch, small.row(y), small.row_bytes());
  return out;
}

}  // namespace ogai::media
