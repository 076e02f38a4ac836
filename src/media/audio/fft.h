// ogai::media::audio::RealFft: the forward FFT of a real frame of any length n >= 1, in double
// precision, through KissFFT (Debian's libkissfft-dev, BSD-3-Clause: its C++ template
// `kissfft<double>` from <kissfft/kissfft.hh>; see docs/media.md for why KissFFT and why double).
// Even n runs the n/2-point complex transform with KissFFT's real-input post-processing
// (transform_real); odd n the n-point complex transform.
// Owns its plan (twiddles and scratch; move-only). Not thread-safe: the scratch buffer is the
// plan's, so each thread needs its own RealFft (construction costs O(n)).
#pragma once

#include <complex>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace ogai::media::audio {

class RealFft {
 public:
  explicit RealFft(std::size_t n);
  ~RealFft();
  RealFft(RealFft&&) noexcept;
  RealFft& operator=(RealFft&&) noexcept;
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  std::size_t size() const { return n_; }
  std::size_t bins() const { return n_ / 2 + 1; }
  // `frame` [n] -> `spectrum` [n / 2 + 1], X[k] = sum_t x[t] exp(-2 pi i k t / n).
  void forward(std::span<const double> frame, std::span<std::complex<double>> spectrum);

 private:
  struct Plan;
  std::size_t n_ = 0;
  std::unique_ptr<Plan> plan_;
};

}  // namespace ogai::media::audio
