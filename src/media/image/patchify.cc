#include "media/image/patchify.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "base/error.h"

namespace ogai::media {
namespace {

// Whether every table[c][v] is the float product float(v) * table[c][1], bit for bit (what the
// rescale op makes); then the samples can be converted and multiplied instead of looked up.
bool is_scaling(const ChannelTable& table) {
  for (const auto& channel : table)
    for (std::size_t v = 0; v < 256; ++v) {
      const float product = static_cast<float>(v) * channel[1];
      if (std::memcmp(&product, &channel[v], sizeof(float)) != 0) return false;
    }
  return true;
}

#if defined(__x86_64__) && defined(__GNUC__)
// `count` interleaved RGB samples (count a multiple of 24, starting at channel 0) converted and
// multiplied by their channel's scale: 8 samples per step, whose channel pattern repeats every 3
// steps. The products are IEEE single multiplies like the table's, so the same floats.
__attribute__((target("avx2"))) void scale_rgb_avx2(const std::uint8_t* src, std::size_t count, const float* scale,
                                                    float* dst) {
  __m256 pattern[3];
  for (int step = 0; step < 3; ++step)
    pattern[step] = _mm256_setr_ps(scale[(step * 8 + 0) % 3], scale[(step * 8 + 1) % 3], scale[(step * 8 + 2) % 3],
                                   scale[(step * 8 + 3) % 3], scale[(step * 8 + 4) % 3], scale[(step * 8 + 5) % 3],
                                   scale[(step * 8 + 6) % 3], scale[(step * 8 + 7) % 3]);
  for (std::size_t i = 0; i < count; i += 24)
    for (int step = 0; step < 3; ++step) {
      std::int64_t eight;
      std::memcpy(&eight, src + i + step * 8, 8);
      const __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(eight)));
      _mm256_storeu_ps(dst + i + step * 8, _mm256_mul_ps(v, pattern[step]));
    }
}
#endif

// The packing for any pixel source: `row(c, y, x, dst)` writes p consecutive samples of channel c
// from (x, y), `pixels(y, x, dst)` p consecutive pixels' 3 channels (channels last); each returns
// the end of what it wrote.
template <class Row, class Pixels>
Patches pack(std::uint32_t width, std::uint32_t height, const PatchSpec& spec, const std::string& what, Row row,
             Pixels pixels) {
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
  const auto reserve = std::max<std::uint64_t>(spec.reserve_count, static_cast<std::uint64_t>(out.count));
  out.bytes.reserve(static_cast<std::size_t>(reserve * out.feature) * sizeof(float));
  out.coords.reserve(static_cast<std::size_t>(out.count * 2));
  // Each patch is packed into `staged` (cache-resident) and appended: the output's memory is
  // written once, not zero-filled by a resize first.
  std::vector<float> staged(static_cast<std::size_t>(out.feature));
  const auto* staged_bytes = reinterpret_cast<const std::uint8_t*>(staged.data());
  float* dst = staged.data();
  const std::uint32_t group = spec.raster_order ? 1 : spec.merge;
  auto emit_channel = [&](std::uint32_t c, std::uint32_t py, std::uint32_t px) {
    for (std::uint32_t y = 0; y < p; ++y) dst = row(c, py * p + y, px * p, dst);
  };
  for (std::uint32_t gy = 0; gy < ph / group; ++gy)
    for (std::uint32_t gx = 0; gx < pw / group; ++gx)
      for (std::uint32_t ly = 0; ly < group; ++ly)
        for (std::uint32_t lx = 0; lx < group; ++lx) {
          const std::uint32_t py = gy * group + ly, px = gx * group + lx;
          if (spec.channels_last) {
            for (std::uint32_t t = 0; t < spec.temporal; ++t)
              for (std::uint32_t y = 0; y < p; ++y) dst = pixels(py * p + y, px * p, dst);
          } else if (spec.temporal_major) {
            for (std::uint32_t t = 0; t < spec.temporal; ++t)
              for (std::uint32_t c = 0; c < 3; ++c) emit_channel(c, py, px);
          } else {
            for (std::uint32_t c = 0; c < 3; ++c)
              for (std::uint32_t t = 0; t < spec.temporal; ++t) emit_channel(c, py, px);
          }
          out.bytes.insert(out.bytes.end(), staged_bytes, staged_bytes + staged.size() * sizeof(float));
          dst = staged.data();
          out.coords.push_back(spec.xy ? px : py);
          out.coords.push_back(spec.xy ? py : px);
        }
  return out;
}

}  // namespace

Patches patchify(const std::vector<float>& chw, std::uint32_t width, std::uint32_t height, const PatchSpec& spec,
                 const std::string& what) {
  const std::size_t plane = static_cast<std::size_t>(width) * height;
  const std::uint32_t p = spec.patch;
  auto at = [&](std::uint32_t c, std::uint32_t y, std::uint32_t x) {
    return chw.data() + c * plane + static_cast<std::size_t>(y) * width + x;
  };
  return pack(
      width, height, spec, what,
      [&](std::uint32_t c, std::uint32_t y, std::uint32_t x, float* dst) {
        const float* src = at(c, y, x);
        for (std::uint32_t i = 0; i < p; ++i) dst[i] = src[i];
        return dst + p;
      },
      [&](std::uint32_t y, std::uint32_t x, float* dst) {
        for (std::uint32_t i = 0; i < p; ++i)
          for (std::uint32_t c = 0; c < 3; ++c) *dst++ = *at(c, y, x + i);
        return dst;
      });
}

Patches patchify(const Raster& rgb, const ChannelTable& table, const PatchSpec& spec, const std::string& what) {
  const std::uint32_t p = spec.patch;
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const bool vector_scale = avx2 && p % 8 == 0 && is_scaling(table);
  const float scale[3] = {table[0][1], table[1][1], table[2][1]};
#endif
  return pack(
      rgb.width, rgb.height, spec, what,
      [&](std::uint32_t c, std::uint32_t y, std::uint32_t x, float* dst) {
        const std::uint8_t* src = rgb.row(y) + static_cast<std::size_t>(x) * 3 + c;
        for (std::uint32_t i = 0; i < p; ++i) dst[i] = table[c][src[i * 3]];
        return dst + p;
      },
      [&](std::uint32_t y, std::uint32_t x, float* dst) {
        const std::uint8_t* src = rgb.row(y) + static_cast<std::size_t>(x) * 3;
#if defined(__x86_64__) && defined(__GNUC__)
        if (vector_scale) {
          scale_rgb_avx2(src, static_cast<std::size_t>(p) * 3, scale, dst);
          return dst + static_cast<std::size_t>(p) * 3;
        }
#endif
        for (std::uint32_t i = 0; i < p; ++i, src += 3, dst += 3) {
          dst[0] = table[0][src[0]];
          dst[1] = table[1][src[1]];
          dst[2] = table[2][src[2]];
        }
        return dst;
      });
}

}  // namespace ogai::media
