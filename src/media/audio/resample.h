// Sample-rate conversion of a planar Waveform through libsoxr (Debian's libsoxr0), at its
// "high quality" setting (SOXR_HQ: 20-bit precision, linear phase, passband to 91% of the lower
// Nyquist frequency, stop-band attenuation past it), each channel on its own. The output holds
// round(frames * to / from) frames per channel, the length every consumer of a resampled clip
// expects (the reference runtime's rule); soxr's own flush is trimmed or zero-padded to it.
// Same rate: a copy. Throws ogai::Error(kInvalidArgument) naming `where` for a rate <= 0 and
// kRuntime when soxr fails. Pure function; thread-safe.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "media/audio/waveform.h"

namespace ogai::media::audio {

// Frames a clip of `frames` frames has at `to` Hz after conversion from `from` Hz.
std::size_t resampled_length(std::size_t frames, int from, int to);

// One channel: `in` at `from` Hz -> resampled_length(in.size(), from, to) samples at `to` Hz.
std::vector<float> resample_channel(std::span<const float> in, int from, int to, const std::string& where);

Waveform resample(const Waveform& in, int to, const std::string& where);

}  // namespace ogai::media::audio
