// Log-mel features of one channel: the power spectrogram (spectrogram.h) through a mel
// filterbank (mel_filters.h), then a logarithm with a floor, then an optional normalization.
//   log:   none | ln | log10 | db (10 log10);   floor: clamp (log(max(x, floor))) or
//          add (log(x + floor));
//   normalize: none; whisper (x = max(x, max_all - 8), then (x + 4) / 4); per_feature (each mel
//          row to zero mean / unit variance over its frames); all_features (the whole matrix);
//          both with population variance and `epsilon` added to it.
// Features are [n_mels, frames] row-major (the layout of Whisper's input_features). The result
// is computed in single precision (KissFFT float). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "media/audio/mel_filters.h"
#include "media/audio/spectrogram.h"

namespace ogai::media::audio {

enum class LogKind { kNone, kLn, kLog10, kDecibel };
enum class FloorMode { kClamp, kAdd };

struct LogOptions {
  LogKind kind = LogKind::kLog10;
  double floor = 1e-10;  // > 0 for every kind but none
  FloorMode mode = FloorMode::kClamp;
};

enum class FeatureNorm { kNone, kWhisper, kPerFeature, kAllFeatures };

struct Features {
  int rows = 0;
  std::size_t frames = 0;
  std::vector<float> values;  // [rows, frames]
};

// `mel.n_fft` is taken from `stft`; `mel.sample_rate` is the caller's (the clip's rate).
// Throws ogai::Error(kInvalidArgument) naming `where` on bad options.
Features log_mel(std::span<const float> samples, const StftOptions& stft, const MelOptions& mel, const LogOptions& log,
                 const std::string& where);

void apply_log(std::span<float> values, const LogOptions& log);
void normalize_features(Features& features, FeatureNorm norm, double epsilon);

}  // namespace ogai::media::audio
