// The short-time Fourier transform of one channel, as torch.stft / librosa.stft and Hugging
// Face's audio_utils.spectrogram define it, and its power spectrogram |X|^power.
// A frame holds frame_length samples (default n_fft): frame t covers samples
// [t * hop, t * hop + frame_length) of the signal, which with `center` is first padded by
// floor(frame_length / 2) (reflect: numpy's "reflect", mirrored without repeating the edge
// sample; constant: zeros on both sides; semicausal: zeros on the left only, Gemma-4's). The
// frame is optionally pre-emphasized (HTK flavour, within the frame: y[0] = (1 - p) x[0],
// y[j] = x[j] - p x[j-1]), multiplied by the window (win_length points, periodic or symmetric,
// centred in the frame with zeros around it) and zero-padded at its end to n_fft for the FFT
// (Hugging Face's fft_length > frame_length).
// Frames: 1 + floor((m - extent) / hop) for the padded length m, 0 when m < extent, where
// extent = frame_extent (default frame_length) is the span a frame must fit in to be counted
// (Gemma-4 counts frames of frame_length + 1 samples, the unfold its pre-emphasis reads);
// drop_last_frame removes the last one (Whisper's feature extractor does: floor(n / hop));
// max_frames caps the count (Hugging Face's max_num_frames).
// Frames, window, pre-emphasis and the FFT (RealFft, fft.h) are computed in double precision
// and each power value rounded once to float, as Hugging Face's spectrogram does (Float64
// frames and FFT, a Float32Array of powers): a float FFT's rounding noise (~1e-7 of a frame's
// energy) would otherwise show in quiet bins, e.g. 3e-3 in Gemma-4's ln(mel + 0.001) beside a
// loud sine. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace ogai::media::audio {

enum class WindowKind { kHann, kHamming, kRectangular };
enum class PadMode { kReflect, kConstant, kSemicausal };

struct StftOptions {
  int n_fft = 400;
  int hop_length = 160;
  int win_length = 0;  // 0: frame_length
  WindowKind window = WindowKind::kHann;
  bool periodic = true;  // periodic (torch / librosa default) or symmetric window
  bool center = true;
  PadMode pad_mode = PadMode::kReflect;
  double power = 2.0;    // 2: power spectrum, 1: magnitude
  bool drop_last_frame = false;
  std::size_t max_frames = 0;  // 0: no cap
  int frame_length = 0;  // samples per frame, <= n_fft; 0: n_fft
  int frame_extent = 0;  // samples a frame must fit in to be counted, >= frame_length; 0: frame_length
  double preemphasis = 0.0;  // HTK-flavour pre-emphasis coefficient in [0, 1); 0: none

  int frame_len() const { return frame_length > 0 ? frame_length : n_fft; }
  int window_len() const { return win_length > 0 ? win_length : frame_len(); }
  int extent() const { return frame_extent > 0 ? frame_extent : frame_len(); }
  // Samples of padding before and after the signal.
  std::size_t left_pad() const { return center ? static_cast<std::size_t>(frame_len() / 2) : 0; }
  std::size_t right_pad() const { return center && pad_mode != PadMode::kSemicausal ? left_pad() : 0; }
};

// Throws ogai::Error(kInvalidArgument) naming `where` when a field is out of range.
void check_stft(const StftOptions& options, const std::string& where);

// The analysis window [frame_length]: win_length points centred, zeros around.
std::vector<double> stft_window(const StftOptions& options);

std::size_t stft_frames(std::size_t samples, const StftOptions& options);

// x[i] for 0 <= i < n, else the padding `mode` gives (reflect: mirrored; constant, semicausal: 0).
float padded_sample(std::span<const float> x, std::ptrdiff_t i, PadMode mode);

// Calls `visit(t, power)` for every frame t in order; `power` holds n_fft / 2 + 1 values of
// |X_t[k]|^power and is valid for the call only.
void for_each_power_frame(std::span<const float> samples, const StftOptions& options,
                          const std::function<void(std::size_t, const float*)>& visit);

// The power spectrogram [n_fft / 2 + 1, frames], row-major.
std::vector<float> power_spectrogram(std::span<const float> samples, const StftOptions& options);

}  // namespace ogai::media::audio
