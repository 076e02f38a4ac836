#include "media/audio/fft.h"

#include <kiss_fft.h>
#include <kiss_fftr.h>

#include <algorithm>

#include "base/error.h"

namespace ogai::media::audio {

static_assert(sizeof(kiss_fft_cpx) == sizeof(std::complex<float>), "kiss_fft_cpx must be two floats");

struct RealFft::Plan {
  kiss_fftr_cfg real = nullptr;  // even n
  kiss_fft_cfg complex = nullptr;  // odd n
  std::vector<kiss_fft_cpx> in, out;  // odd n: the complex transform's buffers
  ~Plan() {
    if (real) kiss_fftr_free(real);
    if (complex) kiss_fft_free(complex);
  }
};

RealFft::RealFft(std::size_t n) : n_(n), plan_(std::make_unique<Plan>()) {
  if (n == 0 || n > (1u << 24)) fail(ErrorCode::kInvalidArgument, "fft", "FFT size {} is outside 1..2^24", n);
  if (n % 2 == 0) {
    plan_->real = kiss_fftr_alloc(static_cast<int>(n), 0, nullptr, nullptr);
  } else {
    plan_->complex = kiss_fft_alloc(static_cast<int>(n), 0, nullptr, nullptr);
    plan_->in.resize(n);
    plan_->out.resize(n);
  }
  if (!plan_->real && !plan_->complex) fail(ErrorCode::kRuntime, "fft", "KissFFT could not plan a size-{} transform", n);
}

RealFft::~RealFft() = default;
RealFft::RealFft(RealFft&&) noexcept = default;
RealFft& RealFft::operator=(RealFft&&) noexcept = default;

void RealFft::forward(std::span<const float> frame, std::span<std::complex<float>> spectrum) {
  OGAI_CHECK(frame.size() == n_ && spectrum.size() == bins());
  auto* out = reinterpret_cast<kiss_fft_cpx*>(spectrum.data());
  if (plan_->real) return kiss_fftr(plan_->real, frame.data(), out);
  for (std::size_t i = 0; i < n_; ++i) plan_->in[i] = {frame[i], 0.0f};
  kiss_fft(plan_->complex, plan_->in.data(), plan_->out.data());
  std::copy_n(plan_->out.begin(), bins(), out);
}

}  // namespace ogai::media::audio
