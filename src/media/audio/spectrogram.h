// The short-time Fourier transform of one channel, as torch.stft / librosa.stft define it, and
// its power spectrogram |X|^power. Frame t covers samples [t * hop, t * hop + n_fft) of the
// signal, which with `center` is first padded by n_fft / 2 on both sides (reflect: numpy's
// "reflect", mirrored without repeating the edge sample; constant: zeros). The window has
// win_length points (periodic or symmetric), centred in the n_fft frame with zeros around it.
// Frames: 1 + floor((m - n_fft) / hop) for the padded length m (n + 2 floor(n_fft / 2) when
// centred: 1 + floor(n / hop) for an even n_fft), 0 when m < n_fft;
// drop_last_frame removes the last one (Whisper's feature extractor does: floor(n / hop)).
// FFTs through RealFft (fft.h). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace ogai::media::audio {

enum class WindowKind { kHann, kHamming, kRectangular };
enum class PadMode { kReflect, kConstant };

struct StftOptions {
  int n_fft = 400;
  int hop_length = 160;
  int win_length = 0;  // 0: n_fft
  WindowKind window = WindowKind::kHann;
  bool periodic = true;  // periodic (torch / librosa default) or symmetric window
  bool center = true;
  PadMode pad_mode = PadMode::kReflect;
  double power = 2.0;    // 2: power spectrum, 1: magnitude
  bool drop_last_frame = false;
};

// Throws ogai::Error(kInvalidArgument) naming `where` when a field is out of range.
void check_stft(const StftOptions& options, const std::string& where);

// The analysis window [n_fft]: win_length points centred, zeros around.
std::vector<float> stft_window(const StftOptions& options);

std::size_t stft_frames(std::size_t samples, const StftOptions& options);

// x[i] for 0 <= i < n, else the padding `mode` gives (reflect: mirrored, constant: 0).
float padded_sample(std::span<const float> x, std::ptrdiff_t i, PadMode mode);

// Calls `visit(t, power)` for every frame t in order; `power` holds n_fft / 2 + 1 values of
// |X_t[k]|^power and is valid for the call only.
void for_each_power_frame(std::span<const float> samples, const StftOptions& options,
                          const std::function<void(std::size_t, const float*)>& visit);

// The power spectrogram [n_fft / 2 + 1, frames], row-major.
std::vector<float> power_spectrogram(std::span<const float> samples, const StftOptions& options);

}  // namespace ogai::media::audio
