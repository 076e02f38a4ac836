// Sample-domain operations of an audio preprocessing program on planar Waveforms: channel
// mixing, padding and trimming to a length, scaling, and zero-mean / unit-variance
// normalization. Each is a pure function; errors throw ogai::Error(kInvalidArgument) naming
// `where` (the program op's document path) and the values involved. Thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "media/audio/waveform.h"

namespace ogai::media::audio {

// To one channel: the mean of the channels. To the same count: unchanged. From one channel to N:
// the channel repeated. Anything else is refused (no channel layout is assumed).
Waveform downmix(const Waveform& in, int channels, const std::string& where);

enum class Side { kRight, kLeft };  // where samples are added or removed

// Every channel to exactly `length` frames: shorter clips get `value` on `side`; longer clips
// lose their frames on `side` (a fixed analysis window).
Waveform fit_length(const Waveform& in, std::size_t length, Side side, float value);
// Pads shorter clips only (longer ones are unchanged).
Waveform pad_to(const Waveform& in, std::size_t length, Side side, float value);
// Trims longer clips only (shorter ones are unchanged).
Waveform trim_to(const Waveform& in, std::size_t length, Side side);

// Every sample times `scale`.
void rescale(std::span<float> values, double scale);

// (x - mean) / sqrt(variance + epsilon) over `values` (population variance, in double).
void zero_mean_unit_variance(std::span<float> values, double epsilon);

}  // namespace ogai::media::audio
