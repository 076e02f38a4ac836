#include "media/audio/resample.h"

#include <soxr.h>

#include "base/error.h"

namespace ogai::media::audio {

std::size_t resampled_length(std::size_t frames, int from, int to) {
  const unsigned __int128 num = static_cast<unsigned __int128>(frames) * static_cast<unsigned>(to);
  return static_cast<std::size_t>((num + static_cast<unsigned>(from) / 2) / static_cast<unsigned>(from));
}

std::vector<float> resample_channel(std::span<const float> in, int from, int to, const std::string& where) {
  if (from <= 0 || to <= 0)
    fail(ErrorCode::kInvalidArgument, where, "cannot resample from {} Hz to {} Hz: rates must be positive", from, to);
  if (from == to) return {in.begin(), in.end()};
  std::vector<float> out(resampled_length(in.size(), from, to));
  if (in.empty() || out.empty()) return out;
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  std::size_t written = 0;
  const soxr_error_t err = soxr_oneshot(from, to, 1, in.data(), in.size(), nullptr, out.data(), out.size(), &written,
                                        &io, &quality, nullptr);
  if (err) fail(ErrorCode::kRuntime, where, "libsoxr failed to resample {} Hz -> {} Hz: {}", from, to, err);
  std::fill(out.begin() + static_cast<std::ptrdiff_t>(written), out.end(), 0.0f);  // soxr may stop a sample short
  return out;
}

Waveform resample(const Waveform& in, int to, const std::string& where) {
  if (in.sample_rate == to) return in;
  Waveform out{to, in.channels, {}};
  out.samples.reserve(resampled_length(in.frames(), in.sample_rate, to) * in.channels);
  for (int c = 0; c < in.channels; ++c) {
    const auto channel = resample_channel(in.channel(c), in.sample_rate, to, where);
    out.samples.insert(out.samples.end(), channel.begin(), channel.end());
  }
  return out;
}

}  // namespace ogai::media::audio
