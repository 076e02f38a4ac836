#include "media/audio/fft.h"

#include <kissfft/kissfft.hh>

#include <algorithm>

#include "base/error.h"

namespace ogai::media::audio {

struct RealFft::Plan {
  explicit Plan(std::size_t n) : fft(n % 2 == 0 ? n / 2 : n, false), out(n % 2 == 0 ? n / 2 : n) {
    if (n % 2 != 0) in.resize(n);
  }
  kissfft<double> fft;                      // n/2 points (even n, real input) or n points (odd n)
  std::vector<std::complex<double>> in, out;  // odd n: the complex input; both: the transform's output
};

RealFft::RealFft(std::size_t n) : n_(n) {
  if (n == 0 || n > (1u << 24)) fail(ErrorCode::kInvalidArgument, "fft", "FFT size {} is outside 1..2^24", n);
  plan_ = std::make_unique<Plan>(n);
}

RealFft::~RealFft() = default;
RealFft::RealFft(RealFft&&) noexcept = default;
RealFft& RealFft::operator=(RealFft&&) noexcept = default;

void RealFft::forward(std::span<const double> frame, std::span<std::complex<double>> spectrum) {
  OGAI_CHECK(frame.size() == n_ && spectrum.size() == bins());
  auto& p = *plan_;
  if (n_ % 2 != 0) {
    std::copy(frame.begin(), frame.end(), p.in.begin());
    p.fft.transform(p.in.data(), p.out.data());
    std::copy_n(p.out.begin(), bins(), spectrum.begin());
    return;
  }
  // transform_real packs X[0] and X[n/2] (both real) into out[0]; out[k] = X[k] for 0 < k < n/2.
  p.fft.transform_real(frame.data(), p.out.data());
  const std::size_t half = n_ / 2;
  spectrum[0] = {p.out[0].real(), 0.0};
  for (std::size_t k = 1; k < half; ++k) spectrum[k] = p.out[k];
  spectrum[half] = {p.out[0].imag(), 0.0};
}

}  // namespace ogai::media::audio
