#include "media/audio/mel_filters.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace ogai::media::audio {
namespace {

constexpr double kSlaneyHzPerMel = 200.0 / 3.0;
constexpr double kSlaneyLogHz = 1000.0;                         // where the log region starts
constexpr double kSlaneyLogMel = kSlaneyLogHz / kSlaneyHzPerMel;  // 15
const double kSlaneyLogStep = std::log(6.4) / 27.0;

}  // namespace

double hz_to_mel(double hz, MelScale scale) {
  if (scale == MelScale::kHtk) return 2595.0 * std::log10(1.0 + hz / 700.0);
  if (hz < kSlaneyLogHz) return hz / kSlaneyHzPerMel;
  return kSlaneyLogMel + std::log(hz / kSlaneyLogHz) / kSlaneyLogStep;
}

double mel_to_hz(double mel, MelScale scale) {
  if (scale == MelScale::kHtk) return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
  if (mel < kSlaneyLogMel) return mel * kSlaneyHzPerMel;
  return kSlaneyLogHz * std::exp(kSlaneyLogStep * (mel - kSlaneyLogMel));
}

MelFilterbank::MelFilterbank(const MelOptions& o, const std::string& where) : bins_(static_cast<std::size_t>(o.n_fft / 2 + 1)) {
  const double nyquist = o.sample_rate / 2.0;
  const double f_max = o.f_max < 0 ? nyquist : o.f_max;
  if (o.n_mels < 1 || o.n_fft < 1 || o.sample_rate < 1)
    fail(ErrorCode::kInvalidArgument, where, "a mel filterbank needs n_mels, n_fft and sample_rate >= 1 (got {}, {}, {})",
         o.n_mels, o.n_fft, o.sample_rate);
  if (!(o.f_min >= 0 && o.f_min < f_max && f_max <= nyquist))
    fail(ErrorCode::kInvalidArgument, where, "mel frequencies need 0 <= f_min < f_max <= {} Hz (got {} and {})", nyquist,
         o.f_min, f_max);
  const double lo = hz_to_mel(o.f_min, o.scale), hi = hz_to_mel(f_max, o.scale);
  std::vector<double> hz(static_cast<std::size_t>(o.n_mels) + 2);
  for (std::size_t i = 0; i < hz.size(); ++i)
    hz[i] = mel_to_hz(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(o.n_mels + 1), o.scale);
  filters_.resize(static_cast<std::size_t>(o.n_mels));
  for (std::size_t m = 0; m < filters_.size(); ++m) {
    const double scale = o.norm == MelNorm::kSlaney ? 2.0 / (hz[m + 2] - hz[m]) : 1.0;
    std::vector<float> dense(bins_);
    for (std::size_t k = 0; k < bins_; ++k) {
      const double f = static_cast<double>(k) * o.sample_rate / o.n_fft;
      const double rise = (f - hz[m]) / (hz[m + 1] - hz[m]), fall = (hz[m + 2] - f) / (hz[m + 2] - hz[m + 1]);
      dense[k] = static_cast<float>(std::max(0.0, std::min(rise, fall)) * scale);
    }
    const auto nz = [](float w) { return w != 0.0f; };
    const auto first = std::find_if(dense.begin(), dense.end(), nz);
    const auto last = std::find_if(dense.rbegin(), dense.rend(), nz).base();
    auto& filter = filters_[m];
    if (first < last) {
      filter.first = static_cast<std::size_t>(first - dense.begin());
      filter.weights.assign(first, last);
    }
  }
}

void MelFilterbank::apply(const float* power, float* mel) const {
  for (std::size_t m = 0; m < filters_.size(); ++m) {
    const auto& f = filters_[m];
    const float* p = power + f.first;
    float acc = 0.0f;
    for (std::size_t i = 0; i < f.weights.size(); ++i) acc += f.weights[i] * p[i];
    mel[m] = acc;
  }
}

std::vector<float> MelFilterbank::dense() const {
  std::vector<float> out(filters_.size() * bins_);
  for (std::size_t m = 0; m < filters_.size(); ++m)
    std::copy(filters_[m].weights.begin(), filters_[m].weights.end(), out.begin() + m * bins_ + filters_[m].first);
  return out;
}

}  // namespace ogai::media::audio
