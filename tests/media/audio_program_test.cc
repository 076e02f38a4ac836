// The preprocessing.audio program (src/media/audio/program.h): load-time checks with document
// paths, and runs of the programs the standard's documents declare (Whisper's fixed window,
// a CTC model's normalized samples with a validity mask), plus every op.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "audio_support.h"
#include "media/audio/program.h"
#include "media/audio/wav_encode.h"
#include "ogai/error.h"

namespace ogai::media::audio {
namespace {

using nlohmann::json;

// The Whisper-shaped program of the reference runtime's tests: a one-second window.
json whisper_program() {
  return json::parse(R"({
    "transforms": [
      {"op": "decode", "outputs": ["samples"]},
      {"op": "resample", "inputs": ["samples"], "outputs": ["resampled"], "sample_rate": 16000},
      {"op": "pad", "inputs": ["resampled"], "outputs": ["windowed"], "mode": "fixed_window", "target_length": 16000, "pad_value": 0.0},
      {"op": "log_mel", "inputs": ["windowed"], "outputs": ["mel"], "num_mel_bins": 80, "n_fft": 400, "hop_length": 160,
       "window": "hann", "mel_scale": "slaney", "sample_rate": 16000},
      {"op": "normalize", "inputs": ["mel"], "outputs": ["features"], "mode": "whisper_log_mel"},
      {"op": "emit_valid_frames", "inputs": ["windowed"], "outputs": ["valid_frames"]}
    ],
    "outputs": [
      {"source": "features", "name": "audio.input_features", "content": "audio_features", "dtype": "float32"},
      {"source": "valid_frames", "name": "audio.valid_frames", "content": "valid_frames", "dtype": "int64"}
    ]})");
}

// A wav2vec2-CTC-style program (the reference's ctc_asr_profile document).
json ctc_program() {
  return json::parse(R"({
    "transforms": [
      {"op": "decode", "outputs": ["t0"]},
      {"op": "resample", "sample_rate": 16000, "inputs": ["t0"], "outputs": ["t1"]},
      {"op": "downmix", "channels": 1, "inputs": ["t1"], "outputs": ["t2"]},
      {"op": "zero_mean_unit_variance", "epsilon": 1.0e-7, "inputs": ["t2"], "outputs": ["t3"]},
      {"op": "pad", "mode": "right", "pad_value": 0.0, "target_length": 8000, "inputs": ["t3"], "outputs": ["t4"]},
      {"op": "emit_validity_mask", "inputs": ["t4"], "outputs": ["mask"]},
      {"op": "emit_sample_lengths", "inputs": ["t4"], "outputs": ["lengths"]}
    ],
    "outputs": [
      {"name": "input_values", "source": "t4", "content": "waveform", "dtype": "float32", "contract": {"dtype": "float32", "rank": 2}},
      {"name": "attention_mask", "source": "mask", "content": "validity_mask", "dtype": "int64"},
      {"name": "lengths", "source": "lengths", "content": "sample_lengths", "dtype": "int64"}
    ]})");
}

std::vector<std::uint8_t> clip(int rate, double seconds, int channels = 1) {
  const auto n = static_cast<std::size_t>(rate * seconds);
  std::vector<float> planar;
  for (int c = 0; c < channels; ++c) {
    const auto s = test::sine(rate, 440.0 * (c + 1), n, 0.5);
    planar.insert(planar.end(), s.begin(), s.end());
  }
  return encode_wav(planar, channels, rate, PcmEncoding::kS16, "clip");
}

const AudioTensor& named(const std::vector<AudioTensor>& ts, const std::string& name) {
  for (const auto& t : ts)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + name);
}

std::string load_error(const json& program) {
  try {
    parse_audio_program(program, "preprocessing.audio");
  } catch (const Error& e) {
    return e.where() + ": " + e.message();
  }
  return "";
}

TEST(AudioProgram, WhisperWindowPadsShortClips) {
  const auto p = parse_audio_program(whisper_program(), "preprocessing.audio");
  const auto out = p.run(clip(16000, 0.25), "request.audio");
  const auto& f = named(out, "audio.input_features");
  EXPECT_EQ(f.shape, (std::vector<std::int64_t>{1, 80, 100}));
  for (float v : f.f32) ASSERT_TRUE(std::isfinite(v));
  EXPECT_EQ(named(out, "audio.valid_frames").i64, (std::vector<std::int64_t>{25}));
}

TEST(AudioProgram, WhisperWindowTrimsLongClipsAndResamples) {
  const auto p = parse_audio_program(whisper_program(), "preprocessing.audio");
  const auto out = p.run(clip(44100, 2.0, 2), "request.audio");  // stereo 44.1 kHz: resampled, averaged for log_mel
  EXPECT_EQ(named(out, "audio.input_features").shape, (std::vector<std::int64_t>{1, 80, 100}));
  EXPECT_EQ(named(out, "audio.valid_frames").i64, (std::vector<std::int64_t>{100}));
}

TEST(AudioProgram, SilenceNormalizesToMinusOneAndAHalf) {
  // log10(1e-10) = -10 everywhere; Whisper's normalization maps it to (-10 + 4) / 4.
  const auto p = parse_audio_program(whisper_program(), "preprocessing.audio");
  const auto silent = encode_wav(std::vector<float>(800, 0.0f), 1, 16000, PcmEncoding::kS16, "clip");
  const auto& f = named(p.run(silent, "request.audio"), "audio.input_features");
  for (float v : f.f32) ASSERT_FLOAT_EQ(v, -1.5f);
}

TEST(AudioProgram, CtcNormalizesPadsAndMasks) {
  const auto p = parse_audio_program(ctc_program(), "preprocessing.audio");
  const auto out = p.run(clip(48000, 0.25, 2), "request.audio");  // 12000 frames -> 4000 at 16 kHz
  const auto& x = named(out, "input_values");
  ASSERT_EQ(x.shape, (std::vector<std::int64_t>{1, 8000}));
  double sum = 0, sq = 0;
  for (std::size_t i = 0; i < 4000; ++i) sum += x.f32[i], sq += double{x.f32[i]} * x.f32[i];
  EXPECT_NEAR(sum / 4000, 0.0, 1e-5);      // zero mean over the clip
  EXPECT_NEAR(sq / 4000, 1.0, 1e-4);       // unit variance
  for (std::size_t i = 4000; i < 8000; ++i) ASSERT_EQ(x.f32[i], 0.0f);  // padding
  const auto& mask = named(out, "attention_mask");
  ASSERT_EQ(mask.shape, (std::vector<std::int64_t>{1, 8000}));
  EXPECT_EQ(std::count(mask.i64.begin(), mask.i64.end(), 1), 4000);
  EXPECT_EQ(mask.i64[3999], 1);
  EXPECT_EQ(mask.i64[4000], 0);
  EXPECT_EQ(named(out, "lengths").i64, (std::vector<std::int64_t>{4000}));
}

TEST(AudioProgram, LeftPaddingMovesTheValidRegion) {
  json j = ctc_program();
  j["transforms"][4]["mode"] = "left";
  const auto out = parse_audio_program(j, "preprocessing.audio").run(clip(16000, 0.25), "request.audio");
  const auto& mask = named(out, "attention_mask");
  EXPECT_EQ(mask.i64[3999], 0);
  EXPECT_EQ(mask.i64[4000], 1);
  EXPECT_EQ(mask.i64[7999], 1);
}

TEST(AudioProgram, EveryOtherOp) {
  const json j = json::parse(R"({
    "transforms": [
      {"op": "decode"},
      {"op": "rescale", "scale": 2.0},
      {"op": "trim", "target_length": 1000, "mode": "left", "outputs": ["trimmed"]},
      {"op": "spectrogram", "n_fft": 256, "hop_length": 100, "power": 1.0, "drop_last_frame": false, "outputs": ["spec"]},
      {"op": "log_mel_spectrogram", "inputs": ["spec"], "num_mel_bins": 10, "n_fft": 256, "hop_length": 100, "power": 1.0,
       "log": "ln", "outputs": ["mel"]},
      {"op": "normalize", "mode": "per_feature", "outputs": ["normed"]},
      {"op": "frame", "inputs": ["trimmed"], "n_fft": 200, "hop_length": 100, "outputs": ["frames"]},
      {"op": "emit_valid_frames", "inputs": ["normed"], "outputs": ["n"]},
      {"op": "emit_valid_samples", "inputs": ["trimmed"], "outputs": ["s"]}
    ],
    "outputs": [
      {"source": "trimmed", "name": "w", "content": "waveform", "dtype": "float32"},
      {"source": "spec", "name": "spec", "content": "features", "dtype": "float32"},
      {"source": "normed", "name": "mel", "content": "audio_features", "dtype": "float32"},
      {"source": "frames", "name": "frames", "content": "features", "dtype": "float32"},
      {"source": "n", "name": "n", "content": "valid_frames", "dtype": "int64"},
      {"source": "s", "name": "s", "content": "valid_samples", "dtype": "int32"}
    ]})");
  const auto p = parse_audio_program(j, "preprocessing.audio");
  const auto wav = clip(8000, 0.5);  // 4000 samples of a 440 Hz tone at 0.5
  const auto out = p.run(wav, "request.audio");
  const auto& w = named(out, "w");
  ASSERT_EQ(w.shape, (std::vector<std::int64_t>{1, 1000}));
  const auto tone = test::sine(8000, 440, 4000, 0.5);
  EXPECT_NEAR(w.f32[0], 2 * tone[3000], 2.0 / 32767);  // the last 1000 samples, doubled
  EXPECT_EQ(named(out, "spec").shape, (std::vector<std::int64_t>{1, 129, 11}));
  EXPECT_EQ(named(out, "mel").shape, (std::vector<std::int64_t>{1, 10, 11}));
  EXPECT_EQ(named(out, "frames").shape, (std::vector<std::int64_t>{1, 9, 200}));  // 1 + (1000 - 200) / 100
  EXPECT_NEAR(named(out, "frames").f32[200 + 5], w.f32[105], 1e-7);
  EXPECT_EQ(named(out, "n").i64, (std::vector<std::int64_t>{10}));  // ceil(1000 / 100), of 11 frames
  EXPECT_EQ(named(out, "s").i64, (std::vector<std::int64_t>{1000}));
}

TEST(AudioProgram, LoadErrorsNameTheField) {
  json j = whisper_program();
  j["transforms"][3].erase("num_mel_bins");
  EXPECT_EQ(load_error(j), "preprocessing.audio.transforms[3].num_mel_bins: is required here");
  j = whisper_program();
  j["transforms"][3]["mel_scale"] = "bark";
  EXPECT_NE(load_error(j).find("transforms[3].mel_scale: is \"bark\"; expected one of slaney, htk"), std::string::npos);
  j = whisper_program();
  j["transforms"][3]["n_fft"] = 0;
  EXPECT_NE(load_error(j).find("transforms[3].n_fft"), std::string::npos);
  j = whisper_program();
  j["transforms"][1]["quality"] = "best";
  EXPECT_NE(load_error(j).find("transforms[1].quality: is not a field"), std::string::npos);
  j = whisper_program();
  j["transforms"][2]["op"] = "time_stretch";
  EXPECT_NE(load_error(j).find("audio op 'time_stretch' is not executed"), std::string::npos);
  j = whisper_program();
  j["outputs"][1]["source"] = "never_produced";
  EXPECT_NE(load_error(j).find("outputs[1].source: 'never_produced'"), std::string::npos);
  j = whisper_program();
  j["transforms"].erase(0);
  EXPECT_NE(load_error(j).find("start with decode"), std::string::npos);
  j = whisper_program();
  j["transforms"][4]["inputs"] = {"nothing"};
  EXPECT_NE(load_error(j).find("transforms[4].inputs: 'nothing'"), std::string::npos);
}

TEST(AudioProgram, MediaErrorsNameTheInput) {
  const auto p = parse_audio_program(whisper_program(), "preprocessing.audio");
  const std::string junk = "not audio at all, just some text that is long enough";
  try {
    p.run({reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()}, "request.audio");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "request.audio");
  }
}

}  // namespace
}  // namespace ogai::media::audio
