#include "media/audio/waveform_ops.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace ogai::media::audio {

Waveform downmix(const Waveform& in, int channels, const std::string& where) {
  if (channels == in.channels) return in;
  const std::size_t n = in.frames();
  Waveform out{in.sample_rate, channels, std::vector<float>(n * static_cast<std::size_t>(channels))};
  if (channels == 1) {
    for (int c = 0; c < in.channels; ++c) {
      const auto src = in.channel(c);
      for (std::size_t i = 0; i < n; ++i) out.samples[i] += src[i];
    }
    for (auto& v : out.samples) v /= static_cast<float>(in.channels);
    return out;
  }
  if (in.channels == 1) {
    for (int c = 0; c < channels; ++c) std::copy(in.samples.begin(), in.samples.end(), out.channel(c).begin());
    return out;
  }
  fail(ErrorCode::kInvalidArgument, where, "cannot mix {} channels into {}: downmix goes to 1 channel, or from 1",
       in.channels, channels);
}

namespace {

Waveform resized(const Waveform& in, std::size_t length, Side side, float value, bool grow, bool shrink) {
  const std::size_t n = in.frames();
  if ((n < length && !grow) || (n > length && !shrink) || n == length) return in;
  Waveform out{in.sample_rate, in.channels, std::vector<float>(length * static_cast<std::size_t>(in.channels), value)};
  const std::size_t keep = std::min(n, length);
  for (int c = 0; c < in.channels; ++c) {
    const auto src = in.channel(c);
    auto dst = out.channel(c);
    const auto from = side == Side::kLeft ? src.end() - static_cast<std::ptrdiff_t>(keep) : src.begin();
    const auto to = side == Side::kLeft ? dst.end() - static_cast<std::ptrdiff_t>(keep) : dst.begin();
    std::copy(from, from + static_cast<std::ptrdiff_t>(keep), to);
  }
  return out;
}

}  // namespace

Waveform fit_length(const Waveform& in, std::size_t length, Side side, float value) {
  return resized(in, length, side, value, true, true);
}
Waveform pad_to(const Waveform& in, std::size_t length, Side side, float value) {
  return resized(in, length, side, value, true, false);
}
Waveform trim_to(const Waveform& in, std::size_t length, Side side) { return resized(in, length, side, 0.0f, false, true); }

void rescale(std::span<float> values, double scale) {
  for (auto& v : values) v = static_cast<float>(v * scale);
}

void zero_mean_unit_variance(std::span<float> values, double epsilon) {
  if (values.empty()) return;
  double sum = 0;
  for (float v : values) sum += v;
  const double mean = sum / static_cast<double>(values.size());
  double sq = 0;
  for (float v : values) sq += (v - mean) * (v - mean);
  const double inv = 1.0 / std::sqrt(sq / static_cast<double>(values.size()) + epsilon);
  for (auto& v : values) v = static_cast<float>((v - mean) * inv);
}

}  // namespace ogai::media::audio
