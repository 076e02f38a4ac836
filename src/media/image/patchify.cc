#include "media/image/patchify.h"

#include "base/error.h"

namespace ogai::media {

Patches patchify(const std::vector<float>& chw, std::uint32_t width, std::uint32_t height, const PatchSpec& spec,
                 const std::string& what) {
  const std::uint32_t p = spec.patch;
  if (width % p != 0 || height % p != 0)
    fail(ErrorCode::kInvalidArgument, what, "an image of {}x{} does not divide into patches of {}", width, height, p);
  const std::uint32_t pw = width / p, ph = height / p;
  if (pw % spec.merge != 0 || ph % spec.merge != 0)
    fail(ErrorCode::kInvalidArgument, what, "a patch grid of {}x{} does not divide into merge groups of {}", pw, ph,
         spec.merge);
  Patches out;
  out.count = static_cast<std::int64_t>(pw) * ph;
  out.feature = static_cast<std::int64_t>(3) * spec.temporal * p * p;
  out.grid = {1, ph, pw};
  out.data.reserve(static_cast<std::size_t>(out.count * out.feature));
  out.coords.reserve(static_cast<std::size_t>(out.count * 2));
  const std::size_t plane = static_cast<std::size_t>(width) * height;
  const std::uint32_t group = spec.raster_order ? 1 : spec.merge;
  auto emit_channel = [&](std::uint32_t c, std::uint32_t py, std::uint32_t px) {
    for (std::uint32_t y = 0; y < p; ++y) {
      const float* row = chw.data() + c * plane + static_cast<std::size_t>(py * p + y) * width + px * p;
      out.data.insert(out.data.end(), row, row + p);
    }
  };
  for (std::uint32_t gy = 0; gy < ph / group; ++gy)
    for (std::uint32_t gx = 0; gx < pw / group; ++gx)
      for (std::uint32_t ly = 0; ly < group; ++ly)
        for (std::uint32_t lx = 0; lx < group; ++lx) {
          const std::uint32_t py = gy * group + ly, px = gx * group + lx;
          if (spec.channels_last) {
            for (std::uint32_t t = 0; t < spec.temporal; ++t)
              for (std::uint32_t y = 0; y < p; ++y)
                for (std::uint32_t x = 0; x < p; ++x)
                  for (std::uint32_t c = 0; c < 3; ++c)
                    out.data.push_back(chw[c * plane + static_cast<std::size_t>(py * p + y) * width + px * p + x]);
          } else if (spec.temporal_major) {
            for (std::uint32_t t = 0; t < spec.temporal; ++t)
              for (std::uint32_t c = 0; c < 3; ++c) emit_channel(c, py, px);
          } else {
            for (std::uint32_t c = 0; c < 3; ++c)
              for (std::uint32_t t = 0; t < spec.temporal; ++t) emit_channel(c, py, px);
          }
          out.coords.push_back(spec.xy ? px : py);
          out.coords.push_back(spec.xy ? py : px);
        }
  return out;
}

}  // namespace ogai::media
