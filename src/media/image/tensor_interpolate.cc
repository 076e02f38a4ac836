#include "media/image/tensor_interpolate.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace ogai::media {
namespace {

constexpr float kA = -0.75f;

// The 4 source indices (clamped) and weights of each output position along one axis.
struct Taps {
  std::vector<std::array<std::uint32_t, 4>> index;
  std::vector<std::array<float, 4>> weight;
};

float near_weight(float x) { return ((kA + 2) * x - (kA + 3)) * x * x + 1; }            // |x| <= 1
float far_weight(float x) { return ((kA * x - 5 * kA) * x + 8 * kA) * x - 4 * kA; }     // 1 < |x| < 2

Taps taps(std::uint32_t in, std::uint32_t out) {
  Taps t;
  t.index.resize(out);
  t.weight.resize(out);
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  const auto last = static_cast<std::int64_t>(in) - 1;
  for (std::uint32_t o = 0; o < out; ++o) {
    const float real = scale * (static_cast<float>(o) + 0.5f) - 0.5f;
    const float floor = std::floor(real);
    const float frac = real - floor;
    const auto base = static_cast<std::int64_t>(floor);
    for (int k = 0; k < 4; ++k)
      t.index[o][k] = static_cast<std::uint32_t>(std::clamp<std::int64_t>(base - 1 + k, 0, last));
    t.weight[o] = {far_weight(frac + 1.0f), near_weight(frac), near_weight(1.0f - frac), far_weight(2.0f - frac)};
  }
  return t;
}

}  // namespace

std::vector<float> interpolate_bicubic(const std::vector<float>& chw, std::uint32_t channels, std::uint32_t in_width,
                                       std::uint32_t in_height, std::uint32_t out_width, std::uint32_t out_height) {
  const Taps xs = taps(in_width, out_width), ys = taps(in_height, out_height);
  const std::size_t in_plane = static_cast<std::size_t>(in_width) * in_height;
  const std::size_t out_plane = static_cast<std::size_t>(out_width) * out_height;
  std::vector<float> out(out_plane * channels);
  for (std::uint32_t c = 0; c < channels; ++c) {
    const float* src = chw.data() + c * in_plane;
    float* dst = out.data() + c * out_plane;
    for (std::uint32_t y = 0; y < out_height; ++y)
      for (std::uint32_t x = 0; x < out_width; ++x) {
        float sum = 0.0f;
        for (int j = 0; j < 4; ++j) {
          const float* row = src + static_cast<std::size_t>(ys.index[y][j]) * in_width;
          float across = 0.0f;
          for (int i = 0; i < 4; ++i) across += row[xs.index[x][i]] * xs.weight[x][i];
          sum += across * ys.weight[y][j];
        }
        dst[static_cast<std::size_t>(y) * out_width + x] = sum;
      }
  }
  return out;
}

}  // namespace ogai::media
