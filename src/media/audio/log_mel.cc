#include "media/audio/log_mel.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "media/audio/waveform_ops.h"

namespace ogai::media::audio {

Features log_mel(std::span<const float> samples, const StftOptions& stft, const MelOptions& mel, const LogOptions& log,
                 const std::string& where) {
  check_stft(stft, where);
  if (log.kind != LogKind::kNone && !(log.floor > 0))
    fail(ErrorCode::kInvalidArgument, where, "the log floor must be positive (got {})", log.floor);
  MelOptions m = mel;
  m.n_fft = stft.n_fft;
  const MelFilterbank bank(m, where);
  Features out{m.n_mels, stft_frames(samples.size(), stft), {}};
  out.values.resize(static_cast<std::size_t>(out.rows) * out.frames);
  std::vector<float> row(static_cast<std::size_t>(out.rows));
  for_each_power_frame(samples, stft, [&](std::size_t t, const float* power) {
    bank.apply(power, row.data());
    for (std::size_t r = 0; r < row.size(); ++r) out.values[r * out.frames + t] = row[r];
  });
  apply_log(out.values, log);
  return out;
}

void apply_log(std::span<float> values, const LogOptions& log) {
  if (log.kind == LogKind::kNone) return;
  const float floor = static_cast<float>(log.floor);
  for (auto& v : values) {
    const float x = log.mode == FloorMode::kClamp ? std::max(v, floor) : v + floor;
    switch (log.kind) {
      case LogKind::kLn: v = std::log(x); break;
      case LogKind::kLog10: v = std::log10(x); break;
      case LogKind::kDecibel: v = 10.0f * std::log10(x); break;
      case LogKind::kNone: break;
    }
  }
}

void normalize_features(Features& f, FeatureNorm norm, double epsilon) {
  switch (norm) {
    case FeatureNorm::kNone: return;
    case FeatureNorm::kWhisper: {
      if (f.values.empty()) return;
      const float floor = *std::max_element(f.values.begin(), f.values.end()) - 8.0f;
      for (auto& v : f.values) v = (std::max(v, floor) + 4.0f) / 4.0f;
      return;
    }
    case FeatureNorm::kPerFeature:
      for (int r = 0; r < f.rows; ++r)
        zero_mean_unit_variance(std::span<float>(f.values).subspan(static_cast<std::size_t>(r) * f.frames, f.frames),
                                epsilon);
      return;
    case FeatureNorm::kAllFeatures: zero_mean_unit_variance(f.values, epsilon); return;
  }
}

}  // namespace ogai::media::audio
