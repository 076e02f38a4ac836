// Triangular mel filterbanks over the bins of a real FFT, as librosa and Hugging Face define
// them: `n_mels + 2` points evenly spaced on the mel scale between f_min and f_max, each filter
// rising from point m to m+1 and falling to m+2 (weights in Hz, clipped at 0); with the slaney
// norm each filter is scaled by 2 / (f[m+2] - f[m]) (constant energy per filter).
// Mel scales: htk (2595 log10(1 + f / 700)) and slaney (linear below 1 kHz at 200/3 Hz per mel,
// logarithmic above at ln(6.4) / 27 per mel).
// Stored sparsely (a filter covers a few bins), so applying one costs O(bins), not
// O(n_mels * bins). Immutable after construction; thread-safe to read.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ogai::media::audio {

enum class MelScale { kHtk, kSlaney };
enum class MelNorm { kNone, kSlaney };

struct MelOptions {
  int n_mels = 80;
  int n_fft = 400;          // the FFT the bins come from: n_fft / 2 + 1 bins
  int sample_rate = 16000;  // Hz
  double f_min = 0.0;       // Hz
  double f_max = -1.0;      // Hz; < 0: sample_rate / 2
  MelScale scale = MelScale::kSlaney;
  MelNorm norm = MelNorm::kSlaney;
};

double hz_to_mel(double hz, MelScale scale);
double mel_to_hz(double mel, MelScale scale);

class MelFilterbank {
 public:
  // Throws ogai::Error(kInvalidArgument) naming `where` for n_mels < 1, f_min >= f_max or
  // f_max above the Nyquist frequency.
  MelFilterbank(const MelOptions& options, const std::string& where);

  int n_mels() const { return static_cast<int>(filters_.size()); }
  std::size_t bins() const { return bins_; }
  // mel[m] = sum_k weight(m, k) * power[k]; `power` has bins() values, `mel` n_mels().
  void apply(const float* power, float* mel) const;
  // The dense matrix [n_mels, bins] (tests and tools).
  std::vector<float> dense() const;

 private:
  struct Filter {
    std::size_t first = 0;        // first bin with a non-zero weight
    std::vector<float> weights;   // bins first .. first + weights.size() - 1
  };
  std::size_t bins_ = 0;
  std::vector<Filter> filters_;
};

}  // namespace ogai::media::audio
