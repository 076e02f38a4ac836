#include "media/image/raster.h"

#include "base/error.h"

namespace ogai::media {

Raster make_raster(std::uint32_t width, std::uint32_t height, std::uint32_t channels) {
  Raster r;
  r.width = width;
  r.height = height;
  r.channels = channels;
  r.pixels.assign(static_cast<std::size_t>(width) * height * channels, 0);
  return r;
}

Raster to_rgb(const Raster& in) {
  if (in.channels == 3) return in;
  if (in.channels < 1 || in.channels > 4)
    fail(ErrorCode::kInternal, "media::to_rgb", "a raster of {} channels has no RGB conversion", in.channels);
  Raster out = make_raster(in.width, in.height, 3);
  const std::size_t n = static_cast<std::size_t>(in.width) * in.height;
  const std::uint8_t* src = in.pixels.data();
  std::uint8_t* dst = out.pixels.data();
  for (std::size_t i = 0; i < n; ++i, src += in.channels, dst += 3) {
    if (in.channels <= 2) {
      dst[0] = dst[1] = dst[2] = src[0];
    } else {
      dst[0] = src[0], dst[1] = src[1], dst[2] = src[2];
    }
  }
  return out;
}

}  // namespace ogai::media
