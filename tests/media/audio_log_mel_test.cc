// Log-mel features (src/media/audio/log_mel.h) against a NumPy oracle written from the
// definitions (tests/media/log_mel_oracle.py, Debian's /usr/bin/python3 with numpy), over every
// option: FFT sizes (even, odd, not a power of two), hops, window kinds and lengths, periodic or
// symmetric, centring and its padding, power, mel scale and norm, frequency range, logarithm and
// floor, and the normalizations. Closeness: |ogai - numpy| <= 1e-4 * max(|numpy|, 1).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <random>

#include "audio_support.h"
#include "media/audio/log_mel.h"
#include "ogai/error.h"

namespace ogai::media::audio {
namespace {

struct Case {
  std::string name;
  StftOptions stft;
  MelOptions mel;
  LogOptions log;
  FeatureNorm norm = FeatureNorm::kNone;
  std::size_t samples = 16000;
};

// A chirp, a tone and a little deterministic noise: energy in every mel band.
std::vector<float> signal(std::size_t n, int rate) {
  std::mt19937 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.01f);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / rate;
    x[i] = static_cast<float>(0.3 * std::sin(2 * std::numbers::pi * (100 * t + 2000 * t * t)) +
                              0.2 * std::sin(2 * std::numbers::pi * 440 * t)) + noise(rng);
  }
  return x;
}

const char* name_of(WindowKind w) { return w == WindowKind::kHann ? "hann" : w == WindowKind::kHamming ? "hamming" : "rectangular"; }
const char* name_of(LogKind k) {
  return k == LogKind::kLog10 ? "log10" : k == LogKind::kLn ? "ln" : k == LogKind::kDecibel ? "db" : "none";
}
const char* name_of(FeatureNorm n) {
  return n == FeatureNorm::kWhisper ? "whisper" : n == FeatureNorm::kPerFeature ? "per_feature"
                                              : n == FeatureNorm::kAllFeatures ? "all_features" : "none";
}

std::vector<float> oracle(const Case& c, const std::vector<float>& x) {
  const auto dir = test::scratch_dir("log_mel");
  const auto signal_path = dir / (c.name + ".f32"), out_path = dir / (c.name + ".out.f32"), case_path = dir / (c.name + ".json");
  std::ofstream(signal_path, std::ios::binary).write(reinterpret_cast<const char*>(x.data()), x.size() * 4);
  std::remove(out_path.c_str());
  const nlohmann::json j = {
      {"signal", signal_path.string()}, {"output", out_path.string()}, {"n_fft", c.stft.n_fft},
      {"hop_length", c.stft.hop_length}, {"win_length", c.stft.win_length ? c.stft.win_length : c.stft.n_fft},
      {"window", name_of(c.stft.window)}, {"window_periodic", c.stft.periodic}, {"center", c.stft.center},
      {"pad_mode", c.stft.pad_mode == PadMode::kReflect ? "reflect" : "constant"}, {"power", c.stft.power},
      {"drop_last_frame", c.stft.drop_last_frame}, {"sample_rate", c.mel.sample_rate}, {"n_mels", c.mel.n_mels},
      {"f_min", c.mel.f_min}, {"f_max", c.mel.f_max}, {"mel_scale", c.mel.scale == MelScale::kHtk ? "htk" : "slaney"},
      {"mel_norm", c.mel.norm == MelNorm::kSlaney ? "slaney" : "none"}, {"log", name_of(c.log.kind)},
      {"log_floor", c.log.floor}, {"log_floor_mode", c.log.mode == FloorMode::kClamp ? "clamp" : "add"},
      {"normalize", name_of(c.norm)}, {"epsilon", 1e-7}};
  std::ofstream(case_path) << j.dump();
  const std::string cmd = "/usr/bin/python3 " + std::string(OGAI_SOURCE_DIR) + "/tests/media/log_mel_oracle.py " + case_path.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return test::read_floats(out_path);
}

class LogMelOracle : public ::testing::TestWithParam<Case> {};

TEST_P(LogMelOracle, EqualsNumpy) {
  const Case& c = GetParam();
  const auto x = signal(c.samples, c.mel.sample_rate);
  Features f = log_mel(x, c.stft, c.mel, c.log, c.name);
  normalize_features(f, c.norm, 1e-7);
  const auto want = oracle(c, x);
  EXPECT_EQ(f.frames, stft_frames(x.size(), c.stft));
  ASSERT_EQ(f.values.size(), want.size()) << "ogai " << f.rows << " x " << f.frames;
  ASSERT_GT(want.size(), 0u);
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double err = std::abs(double{f.values[i]} - want[i]) / std::max(1.0, std::abs(double{want[i]}));
    worst = std::max(worst, err);
    ASSERT_LE(err, 1e-4) << c.name << " at mel " << i / f.frames << ", frame " << i % f.frames << ": ogai " << f.values[i]
                         << ", numpy " << want[i];
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
}

Case whisper(int n_mels) {
  Case c{"whisper" + std::to_string(n_mels), {}, {}, {}, FeatureNorm::kWhisper};
  c.stft.drop_last_frame = true;
  c.mel.n_mels = n_mels;
  return c;
}

std::vector<Case> cases() {
  std::vector<Case> out{whisper(80), whisper(128)};
  Case htk{"htk_ln_magnitude_hamming", {}, {}, {}};
  htk.stft = {512, 128, 400, WindowKind::kHamming, true, true, PadMode::kReflect, 1.0, false};
  htk.mel = {64, 512, 16000, 20.0, 7600.0, MelScale::kHtk, MelNorm::kNone};
  htk.log = {LogKind::kLn, 1e-6, FloorMode::kAdd};
  out.push_back(htk);
  Case odd{"odd_fft_db_per_feature", {}, {}, {}, FeatureNorm::kPerFeature, 12000};
  odd.stft = {401, 100, 0, WindowKind::kHann, false, true, PadMode::kConstant, 2.0, false};
  odd.mel = {40, 401, 22050, 0.0, -1.0, MelScale::kSlaney, MelNorm::kSlaney};
  odd.log = {LogKind::kDecibel, 1e-10, FloorMode::kClamp};
  out.push_back(odd);
  Case uncentred{"uncentred_rect_all_features", {}, {}, {}, FeatureNorm::kAllFeatures, 8000};
  uncentred.stft = {256, 80, 200, WindowKind::kRectangular, true, false, PadMode::kReflect, 2.0, false};
  uncentred.mel = {32, 256, 8000, 50.0, 3900.0, MelScale::kHtk, MelNorm::kSlaney};
  out.push_back(uncentred);
  Case gemma{"gemma_like_20ms_10ms", {}, {}, {}};  // 128 mels, 20 ms window in a 512 FFT, 10 ms hop, ln(x + 1e-3)
  gemma.stft = {512, 160, 320, WindowKind::kHann, true, true, PadMode::kReflect, 2.0, false};
  gemma.mel = {128, 512, 16000, 125.0, 7600.0, MelScale::kHtk, MelNorm::kNone};
  gemma.log = {LogKind::kLn, 1e-3, FloorMode::kAdd};
  out.push_back(gemma);
  Case raw{"power_1_5_no_log", {}, {}, {LogKind::kNone, 1e-10, FloorMode::kClamp}};
  raw.stft.power = 1.5;
  raw.mel.n_mels = 20;
  out.push_back(raw);
  Case short_clip{"short_clip_reflects_repeatedly", {}, {}, {}, FeatureNorm::kNone, 150};  // shorter than n_fft / 2
  out.push_back(short_clip);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Options, LogMelOracle, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

TEST(MelFilterbank, RefusesBadRanges) {
  MelOptions o;
  o.f_max = 9000;  // above 8 kHz Nyquist
  EXPECT_THROW(MelFilterbank(o, "x"), Error);
  o.f_max = -1;
  o.n_mels = 0;
  EXPECT_THROW(MelFilterbank(o, "x"), Error);
}

TEST(Stft, FrameCounts) {
  StftOptions o;  // 400 / 160, centred
  EXPECT_EQ(stft_frames(480000, o), 3001u);
  o.drop_last_frame = true;
  EXPECT_EQ(stft_frames(480000, o), 3000u);  // Whisper's 30 s window
  o = {};
  o.center = false;
  EXPECT_EQ(stft_frames(399, o), 0u);
  EXPECT_EQ(stft_frames(400, o), 1u);
  EXPECT_EQ(stft_frames(720, o), 3u);
}

}  // namespace
}  // namespace ogai::media::audio
