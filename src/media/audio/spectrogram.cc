#include "media/audio/spectrogram.h"

#include <cmath>
#include <complex>
#include <numbers>

#include "base/error.h"
#include "media/audio/fft.h"

namespace ogai::media::audio {
namespace {

// numpy's "reflect" padding for any index (repeated reflections for pads longer than the signal).
float reflected(std::span<const float> x, std::ptrdiff_t i) {
  const auto n = static_cast<std::ptrdiff_t>(x.size());
  if (n == 1) return x[0];
  const std::ptrdiff_t period = 2 * (n - 1);
  std::ptrdiff_t j = i % period;
  if (j < 0) j += period;
  return x[static_cast<std::size_t>(j < n ? j : period - j)];
}

float powered(std::complex<float> c, double power) {
  const float p = c.real() * c.real() + c.imag() * c.imag();
  if (power == 2.0) return p;
  if (power == 1.0) return std::sqrt(p);
  return static_cast<float>(std::pow(static_cast<double>(p), power / 2.0));
}

}  // namespace

float padded_sample(std::span<const float> x, std::ptrdiff_t i, PadMode mode) {
  if (i >= 0 && i < static_cast<std::ptrdiff_t>(x.size())) return x[static_cast<std::size_t>(i)];
  return mode == PadMode::kReflect && !x.empty() ? reflected(x, i) : 0.0f;
}

void check_stft(const StftOptions& o, const std::string& where) {
  const int win = o.win_length == 0 ? o.n_fft : o.win_length;
  if (o.n_fft < 1 || o.n_fft > (1 << 20) || o.hop_length < 1 || win < 1 || win > o.n_fft)
    fail(ErrorCode::kInvalidArgument, where, "STFT needs 1 <= n_fft <= 2^20, hop_length >= 1 and 1 <= win_length <= n_fft "
         "(got n_fft {}, hop_length {}, win_length {})", o.n_fft, o.hop_length, win);
  if (!(o.power > 0) || !std::isfinite(o.power))
    fail(ErrorCode::kInvalidArgument, where, "spectrogram power must be positive (got {})", o.power);
}

std::vector<float> stft_window(const StftOptions& o) {
  const int win = o.win_length == 0 ? o.n_fft : o.win_length;
  std::vector<float> w(static_cast<std::size_t>(o.n_fft), 0.0f);
  const double denom = o.periodic ? win : std::max(win - 1, 1);
  const double a = o.window == WindowKind::kHamming ? 0.54 : 0.5;  // generalized cosine window
  const int offset = (o.n_fft - win) / 2;
  for (int i = 0; i < win; ++i) {
    const double v = o.window == WindowKind::kRectangular
                         ? 1.0
                         : a - (1.0 - a) * std::cos(2.0 * std::numbers::pi * i / denom);
    w[static_cast<std::size_t>(offset + i)] = static_cast<float>(v);
  }
  return w;
}

std::size_t stft_frames(std::size_t n, const StftOptions& o) {
  const auto hop = static_cast<std::size_t>(o.hop_length), nfft = static_cast<std::size_t>(o.n_fft);
  const std::size_t padded = o.center ? n + 2 * (nfft / 2) : n;  // odd n_fft: one sample short of n + n_fft
  std::size_t frames = padded < nfft ? 0 : 1 + (padded - nfft) / hop;
  if (o.drop_last_frame && frames > 0) --frames;
  return frames;
}

void for_each_power_frame(std::span<const float> x, const StftOptions& o,
                          const std::function<void(std::size_t, const float*)>& visit) {
  const std::size_t frames = stft_frames(x.size(), o);
  const auto window = stft_window(o);
  RealFft fft(static_cast<std::size_t>(o.n_fft));
  std::vector<float> frame(fft.size()), power(fft.bins());
  std::vector<std::complex<float>> spectrum(fft.bins());
  const std::ptrdiff_t shift = o.center ? o.n_fft / 2 : 0;
  for (std::size_t t = 0; t < frames; ++t) {
    const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(t) * o.hop_length - shift;
    const bool inside = start >= 0 && start + o.n_fft <= static_cast<std::ptrdiff_t>(x.size());
    for (std::size_t i = 0; i < frame.size(); ++i) {
      const float s = inside ? x[static_cast<std::size_t>(start) + i]
                             : padded_sample(x, start + static_cast<std::ptrdiff_t>(i), o.pad_mode);
      frame[i] = s * window[i];
    }
    fft.forward(frame, spectrum);
    for (std::size_t k = 0; k < power.size(); ++k) power[k] = powered(spectrum[k], o.power);
    visit(t, power.data());
  }
}

std::vector<float> power_spectrogram(std::span<const float> x, const StftOptions& o) {
  const std::size_t frames = stft_frames(x.size(), o), bins = static_cast<std::size_t>(o.n_fft / 2 + 1);
  std::vector<float> out(bins * frames);
  for_each_power_frame(x, o, [&](std::size_t t, const float* p) {
    for (std::size_t k = 0; k < bins; ++k) out[k * frames + t] = p[k];
  });
  return out;
}

}  // namespace ogai::media::audio
