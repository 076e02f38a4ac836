// Log-mel of 30 s of 16 kHz audio (Whisper's window: 400 / 160, 80 and 128 mels, Whisper's
// normalization) through src/media/audio, single thread, against two baselines in the same run:
//   - a bare FFT pass: KissFFT over the same 3000 frames (copy, window, rfft; no power, no mel,
//     no log), timed in pairs with the log-mel (FFT, then log-mel, per run): the median of the
//     per-pair ratios says what the mel, log and framing add on top of the FFT itself;
//   - NumPy doing the same computation (float32 numpy.fft.rfft, a dense filterbank matmul, log10
//     and the clamp) through Debian's /usr/bin/python3, median of --runs calls.
// Also Gemma-4's log-mel of 30 s (2999 frames of 320 samples in a 512-point FFT, 128 HTK mels,
// magnitude, ln(x + 0.001)), paired with a bare 512-point FFT pass over its frames.
// Goal (issues 34 and 35): Whisper log-mel of 30 s <= 20 ms on one thread.
// Usage: log_mel_bench [--runs N]
#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "media/audio/fft.h"
#include "media/audio/log_mel.h"

namespace {

using namespace ogai::media::audio;

std::vector<float> clip(std::size_t n) {
  std::mt19937 rng(1);
  std::normal_distribution<float> noise(0.0f, 0.02f);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(0.4 * std::sin(2 * std::numbers::pi * 440 * i / 16000.0)) + noise(rng);
  return x;
}

StftOptions whisper_stft() {
  StftOptions stft;
  stft.drop_last_frame = true;
  return stft;
}

StftOptions gemma4_stft() {
  StftOptions stft;
  stft.n_fft = 512, stft.frame_length = 320, stft.frame_extent = 321, stft.hop_length = 160;
  stft.pad_mode = PadMode::kSemicausal, stft.power = 1.0;
  return stft;
}

// The baseline: one real FFT per frame over the same frames (copy and window included).
void bare_fft_pass(const std::vector<float>& x, const StftOptions& stft) {
  RealFft fft(static_cast<std::size_t>(stft.n_fft));
  std::vector<double> frame(fft.size(), 0.0), window = stft_window(stft);
  std::vector<std::complex<double>> spectrum(fft.bins());
  const std::size_t frames = stft_frames(x.size(), stft), len = window.size();
  double sink = 0.0;
  for (std::size_t t = 0; t < frames; ++t) {
    const std::ptrdiff_t start = static_cast<std::ptrdiff_t>(t * stft.hop_length) - static_cast<std::ptrdiff_t>(stft.left_pad());
    for (std::size_t i = 0; i < len; ++i) frame[i] = padded_sample(x, start + static_cast<std::ptrdiff_t>(i), stft.pad_mode) * window[i];
    fft.forward(frame, spectrum);
    sink += spectrum[1].real();
  }
  if (sink == 12345.678) std::abort();  // keeps the work observable
}

struct Paired {
  double ogai_ms, fft_ms, ratio;  // medians (ratio: of the per-pair ratios)
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Paired paired_runs(const std::vector<float>& x, const StftOptions& stft, const MelOptions& mel, const LogOptions& log,
                   FeatureNorm norm, int runs) {
  std::vector<double> ours, base, ratios;
  for (int r = 0; r < runs; ++r) {
    const double b = ogai::bench::thread_cpu_once([&] { bare_fft_pass(x, stft); });
    const double o = ogai::bench::thread_cpu_once([&] {
      Features f = log_mel(x, stft, mel, log, "bench");
      normalize_features(f, norm, 0);
      if (f.frames != stft_frames(x.size(), stft)) std::abort();
    });
    ours.push_back(o * 1e3), base.push_back(b * 1e3), ratios.push_back(o / b);
  }
  return {median(ours), median(base), median(ratios)};
}

// NumPy's median milliseconds for the same work (its filterbank built once, outside the timing).
double numpy_ms(int n_mels, int runs) {
  const std::string script = R"(
import time, numpy as np
sr, n_fft, hop, n_mels, runs = 16000, 400, 160, )" + std::to_string(n_mels) + ", " + std::to_string(runs) + R"(
rng = np.random.default_rng(1)
t = np.arange(30 * sr) / sr
x = (0.4 * np.sin(2 * np.pi * 440 * t) + rng.normal(0, 0.02, t.size)).astype(np.float32)
def hz2mel(f): return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-9) / 1000) / (np.log(6.4) / 27), f * 3 / 200)
def mel2hz(m): return np.where(m >= 15, 1000 * np.exp(np.log(6.4) / 27 * (m - 15)), m * 200 / 3)
hz = mel2hz(np.linspace(hz2mel(np.array(0.0)), hz2mel(np.array(sr / 2)), n_mels + 2))
f = np.arange(n_fft // 2 + 1) * sr / n_fft
fb = np.maximum(0, np.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                              (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None]))) * (2 / (hz[2:] - hz[:-2]))[:, None]
fb = fb.astype(np.float32)
w = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)
def logmel(x):
    p = np.pad(x, n_fft // 2, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(p, n_fft)[::hop][:-1]
    s = np.abs(np.fft.rfft(frames * w, axis=1)) ** 2
    m = np.log10(np.maximum(fb @ s.T.astype(np.float32), 1e-10))
    return (np.maximum(m, m.max() - 8) + 4) / 4
ts = []
for _ in range(runs):
    a = time.thread_time(); out = logmel(x); ts.append(time.thread_time() - a)
assert out.shape == (n_mels, 3000)
print(sorted(ts)[len(ts) // 2] * 1e3)
)";
  FILE* p = popen(("/usr/bin/python3 -c '" + script + "'").c_str(), "r");
  if (!p) return -1;
  char line[128] = {0};
  const bool ok = std::fgets(line, sizeof line, p) != nullptr;
  pclose(p);
  return ok ? std::atof(line) : -1;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 15;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
  const auto x = clip(30 * 16000);
  std::printf("log-mel of 30 s at 16 kHz, thread CPU time, medians of %d paired runs\n", runs);
  for (int n_mels : {80, 128}) {
    MelOptions mel;
    mel.n_mels = n_mels;
    const Paired p = paired_runs(x, whisper_stft(), mel, {}, FeatureNorm::kWhisper, runs);
    const double numpy = numpy_ms(n_mels, runs);
    std::printf("  Whisper %3d mels: ogai %.2f ms; bare FFT pass %.2f ms, ogai/FFT %.2f; numpy %.2f ms, ogai/numpy %.2f; "
                "goal ogai <= 20 ms: %s\n", n_mels, p.ogai_ms, p.fft_ms, p.ratio, numpy, numpy > 0 ? p.ogai_ms / numpy : 0.0,
                p.ogai_ms <= 20.0 ? "met" : "NOT met");
  }
  MelOptions mel;
  mel.n_mels = 128, mel.n_fft = 512, mel.f_max = 8000, mel.scale = MelScale::kHtk, mel.norm = MelNorm::kNone;
  const LogOptions log{LogKind::kLn, 0.001, FloorMode::kAdd};
  const Paired g = paired_runs(x, gemma4_stft(), mel, log, FeatureNorm::kNone, runs);
  std::printf("  Gemma-4 128 mels: ogai %.2f ms; bare FFT pass %.2f ms, ogai/FFT %.2f\n", g.ogai_ms, g.fft_ms, g.ratio);
  return 0;
}
