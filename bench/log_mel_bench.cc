// Log-mel of 30 s of 16 kHz audio (Whisper's window: 400 / 160, 80 and 128 mels, Whisper's
// normalization) through src/media/audio, single thread, vs NumPy doing the same computation
// (float32 numpy.fft.rfft, a dense filterbank matmul, log10 and the clamp) in the same run through
// Debian's /usr/bin/python3. Prints the median of --runs calls of each and their ratio.
// Goal (issue 34): ogai <= 20 ms.
// Usage: log_mel_bench [--runs N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
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

double ogai_ms(const std::vector<float>& x, int n_mels, int runs) {
  StftOptions stft;
  stft.drop_last_frame = true;
  MelOptions mel;
  mel.n_mels = n_mels;
  std::vector<double> times;
  for (int r = 0; r < runs; ++r)
    times.push_back(ogai::bench::thread_cpu_once([&] {
      Features f = log_mel(x, stft, mel, {}, "bench");
      normalize_features(f, FeatureNorm::kWhisper, 0);
      if (f.frames != 3000) std::abort();
    }));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2] * 1e3;
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
  std::printf("log-mel of 30 s at 16 kHz (n_fft 400, hop 160, Whisper normalization), thread CPU time, median of %d\n", runs);
  for (int n_mels : {80, 128}) {
    const double ogai = ogai_ms(x, n_mels, runs), numpy = numpy_ms(n_mels, runs);
    std::printf("  %3d mels: ogai %.2f ms, numpy %.2f ms, ogai/numpy %.2f; goal ogai <= 20 ms: %s\n", n_mels, ogai, numpy,
                numpy > 0 ? ogai / numpy : 0.0, ogai <= 20.0 ? "met" : "NOT met");
  }
  return 0;
}
