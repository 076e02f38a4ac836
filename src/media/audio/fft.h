// ogai::media::audio::RealFft: the forward FFT of a real frame of any length n >= 1, through
// KissFFT (Debian's libkissfft-float, BSD-3-Clause; see docs/media.md for why KissFFT). Even n
// uses KissFFT's real transform; odd n its complex one. Single precision.
// Owns its KissFFT plan (move-only). Not thread-safe: KissFFT's real plan keeps a scratch buffer,
// so each thread needs its own RealFft (construction costs O(n)).
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
  void forward(std::span<const float> frame, std::span<std::complex<float>> spectrum);

 private:
  struct Plan;
  std::size_t n_ = 0;
  std::unique_ptr<Plan> plan_;
};

}  // namespace ogai::media::audio
