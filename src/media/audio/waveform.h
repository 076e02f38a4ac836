// ogai::media::audio::Waveform: decoded audio as planar float samples, the value every audio
// operation in this folder takes and returns. Plain struct; thread-safe to read.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ogai::media::audio {

struct Waveform {
  int sample_rate = 0;       // Hz, > 0
  int channels = 0;          // >= 1
  std::vector<float> samples;  // [channels, frames], planar; full scale is [-1, 1]

  std::size_t frames() const { return channels > 0 ? samples.size() / static_cast<std::size_t>(channels) : 0; }
  std::span<const float> channel(int c) const { return {samples.data() + c * frames(), frames()}; }
  std::span<float> channel(int c) { return {samples.data() + c * frames(), frames()}; }
};

}  // namespace ogai::media::audio
