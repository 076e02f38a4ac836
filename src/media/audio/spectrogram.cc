#include "media/audio/spectrogram.h"

#include <algorithm>
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

// |c|^power from the double-precision spectrum, rounded once to float (as Hugging Face stores
// its power spectrogram in a Float32Array, and takes the root of that for power 1).
float powered(std::complex<double> c, double power) {
  const auto p = static_cast<float>(c.real() * c.real() + c.imag() * c.imag());
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
  const int frame = o.frame_len(), win = o.window_len();
  if (o.n_fft < 1 || o.n_fft > (1 << 20) || o.hop_length < 1 || frame < 1 || frame > o.n_fft || win < 1 || win > frame)
    fail(ErrorCode::kInvalidArgument, where, "STFT needs 1 <= n_fft <= 2^20, hop_length >= 1 and 1 <= win_length <= "
         "frame_length <= n_fft (got n_fft {}, hop_length {}, frame_length {}, win_length {})", o.n_fft, o.hop_length,
         frame, win);
  if (o.extent() < frame || o.extent() > (1 << 21))
    fail(ErrorCode::kInvalidArgument, where, "frame_extent must be at least frame_length {} (got {})", frame, o.extent());
  if (!(o.power > 0) || !std::isfinite(o.power))
    fail(ErrorCode::kInvalidArgument, where, "spectrogram power must be positive (got {})", o.power);
  if (!(o.preemphasis >= 0 && o.preemphasis < 1))
    fail(ErrorCode::kInvalidArgument, where, "preemphasis must be in [0, 1) (got {})", o.preemphasis);
}

std::vector<double> stft_window(const StftOptions& o) {
  const int win = o.window_len();
  std::vector<double> w(static_cast<std::size_t>(o.frame_len()), 0.0);
  const double denom = o.periodic ? win : std::max(win - 1, 1);
  const double a = o.window == WindowKind::kHamming ? 0.54 : 0.5;  // generalized cosine window
  const int offset = (o.frame_len() - win) / 2;
  for (int i = 0; i < win; ++i) {
    const double v = o.window == WindowKind::kRectangular
                         ? 1.0
                         : a - (1.0 - a) * std::cos(2.0 * std::numbers::pi * i / denom);
    w[static_cast<std::size_t>(offset + i)] = v;
  }
  return w;
}

std::size_t stft_frames(std::size_t n, const StftOptions& o) {
  const auto hop = static_cast<std::size_t>(o.hop_length), extent = static_cast<std::size_t>(o.extent());
  const std::size_t padded = n + o.left_pad() + o.right_pad();
  std::size_t frames = padded < extent ? 0 : 1 + (padded - extent) / hop;
  if (o.drop_last_frame && frames > 0) --frames;
  if (o.max_frames > 0) frames = std::min(frames, o.max_frames);
  return frames;
}

namespace {

// Pre-emphasis within one frame, HTK flavour (Hugging Face's spectrogram with
// preemphasis_htk_flavor): y[j] = x[j] - p x[j-1] for j >= 1, y[0] = (1 - p) x[0].
void preemphasize(std::span<double> frame, double p) {
  for (std::size_t j = frame.size(); j-- > 1;) frame[j] -= p * frame[j - 1];
  if (!frame.empty()) frame[0] *= 1.0 - p;
}

}  // namespace

void for_each_power_frame(std::span<const float> x, const StftOptions& o,
                          const std::function<void(std::size_t, const float*)>& visit) {
  const std::size_t frames = stft_frames(x.size(), o), len = static_cast<std::size_t>(o.frame_len());
  const auto window = stft_window(o);
  RealFft fft(static_cast<std::size_t>(o.n_fft));
  std::vector<double> frame(fft.size(), 0.0);  // [len, n_fft) stays zero
  std::vector<float> power(fft.bins());
  std::vector<std::complex<double>> spectrum(fft.bins());
  const auto shift = static_cast<std::ptrdiff_t>(o.left_pad());
  const double p = o.preemphasis;
  for (std::size_t t = 0; t < frames; ++t) {
    const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(t) * o.hop_length - shift;
    const bool inside = start >= 0 && start + static_cast<std::ptrdiff_t>(len) <= static_cast<std::ptrdiff_t>(x.size());
    for (std::size_t i = 0; i < len; ++i)
      frame[i] = inside ? x[static_cast<std::size_t>(start) + i]
                        : padded_sample(x, start + static_cast<std::ptrdiff_t>(i), o.pad_mode);
    if (p != 0.0) preemphasize(std::span<double>(frame).first(len), p);
    for (std::size_t i = 0; i < len; ++i) frame[i] *= window[i];
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
