// The units behind Gemma-4's audio features (src/media/audio): frame counts with a frame
// shorter than the FFT and a counting extent, semicausal padding, the two frame-validity rules,
// the soft-token arithmetic, and the load-time refusals of the new program fields. The values
// are checked against transformers.js end to end in audio_hf_features.cjs; here each rule is
// pinned on its own, with the numbers Hugging Face's formulas give.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "media/audio/frame_validity.h"
#include "media/audio/program.h"
#include "media/audio/spectrogram.h"
#include "media/audio/token_count.h"
#include "media/audio/wav_encode.h"
#include "ogai/error.h"

namespace ogai::media::audio {
namespace {

using nlohmann::json;

StftOptions gemma4() {
  StftOptions s;
  s.n_fft = 512, s.frame_length = 320, s.frame_extent = 321, s.hop_length = 160, s.pad_mode = PadMode::kSemicausal;
  return s;
}

// Hugging Face's Gemma-4 frame count: floor((n + 160 - 321) / 160) + 1.
std::size_t hf_gemma4_frames(long long n) { return static_cast<std::size_t>((n + 160 - 321) / 160 + 1); }

TEST(GemmaFrames, CountsOverTheUnfoldExtent) {
  const StftOptions s = gemma4();
  EXPECT_EQ(s.left_pad(), 160u);
  EXPECT_EQ(s.right_pad(), 0u);
  for (long long n : {16000LL, 16128LL, 480000LL, 1664LL, 256LL})
    EXPECT_EQ(stft_frames(static_cast<std::size_t>(n), s), hf_gemma4_frames(n)) << n;
  EXPECT_EQ(stft_frames(480000, s), 2999u);  // 30 s: 2999 frames, not 3000
  EXPECT_EQ(stft_frames(100, s), 0u);        // 260 padded samples hold no 321-sample frame
  StftOptions capped = s;
  capped.max_frames = 7;
  EXPECT_EQ(stft_frames(16000, capped), 7u);
}

TEST(GemmaFrames, ShortFrameIsZeroPaddedInTheFft) {
  // A frame of 320 ones, no window: bin 0 of the 512-point FFT is the frame's sum (320), not 512.
  StftOptions s = gemma4();
  s.window = WindowKind::kRectangular, s.center = false, s.power = 1.0;
  const std::vector<float> x(2000, 1.0f);
  const auto spec = power_spectrogram(x, s);
  const std::size_t frames = stft_frames(x.size(), s);
  ASSERT_GT(frames, 0u);
  EXPECT_NEAR(spec[0], 320.0f, 1e-3f);
}

TEST(GemmaFrames, PreemphasisIsTheHtkFlavourWithinEachFrame) {
  // A constant frame pre-emphasized with p: y[0] = (1 - p) x, y[j] = (1 - p) x, so the DC bin
  // scales by (1 - p).
  StftOptions s = gemma4();
  s.window = WindowKind::kRectangular, s.center = false, s.power = 1.0, s.preemphasis = 0.97;
  const std::vector<float> x(2000, 1.0f);
  EXPECT_NEAR(power_spectrogram(x, s)[0], 320.0f * 0.03f, 1e-3f);
}

TEST(FrameValidity, HopRuleCountsStartedHops) {
  StftOptions s;
  s.hop_length = 160;
  auto r = valid_frame_range(0, 16000, 3000, s, FrameValidity::kHop);
  EXPECT_EQ(r.begin, 0u);
  EXPECT_EQ(r.count, 100u);
  r = valid_frame_range(0, 16001, 3000, s, FrameValidity::kHop);
  EXPECT_EQ(r.count, 101u);
  r = valid_frame_range(8000, 1600, 3000, s, FrameValidity::kHop);  // a left-padded clip
  EXPECT_EQ(r.begin, 50u);
  EXPECT_EQ(r.count, 10u);
  EXPECT_EQ(valid_frame_range(0, 0, 3000, s, FrameValidity::kHop).count, 0u);
}

TEST(FrameValidity, ExtentEndRuleIsGemma4Mask) {
  // Hugging Face: frame t is valid when t * 160 + 320 < 160 + n, i.e. ceil((n - 160) / 160) frames.
  const StftOptions s = gemma4();
  for (std::size_t n : {16000u, 16100u, 1600u, 7300u * 16u, 161u}) {
    const std::size_t padded = (n + 127) / 128 * 128;
    const auto r = valid_frame_range(0, n, stft_frames(padded, s), s, FrameValidity::kExtentEnd);
    EXPECT_EQ(r.begin, 0u);
    EXPECT_EQ(r.count, (n - 160 + 159) / 160) << n;
  }
  EXPECT_EQ(valid_frame_range(0, 160, 1, s, FrameValidity::kExtentEnd).count, 0u);
}

TEST(TokenCount, Gemma4Arithmetic) {
  const std::vector<Convolution> two = {{3, 2, 1}, {3, 2, 1}};
  EXPECT_EQ(token_count(99, two, 750), 25);    // 1 s at 16 kHz: 25 soft tokens (transformers.js says 25)
  EXPECT_EQ(token_count(9, two, 750), 3);      // 0.1 s
  EXPECT_EQ(token_count(2999, two, 750), 750);  // 30 s: 750, the cap
  EXPECT_EQ(token_count(0, two, 750), 0);
  EXPECT_EQ(token_count(1, two, 750), 1);
  EXPECT_EQ(token_count(4000, two, 0), 1000);  // no cap
  EXPECT_EQ(token_count(10, {{5, 1, 0}}, 0), 6);
  EXPECT_EQ(token_count(3, {{5, 1, 0}}, 0), 0);  // kernel wider than the frames
}

std::string load_error(const json& program) {
  try {
    parse_audio_program(program, "preprocessing.audio");
  } catch (const Error& e) {
    return e.where() + ": " + e.message();
  }
  return "";
}

json gemma4_program() {
  return json::parse(R"({
    "transforms": [
      {"op": "decode"},
      {"op": "downmix", "channels": 1},
      {"op": "resample", "sample_rate": 16000},
      {"op": "trim", "target_length": 480000},
      {"op": "pad", "multiple_of": 128},
      {"op": "log_mel", "num_mel_bins": 128, "n_fft": 512, "frame_length": 320, "frame_extent": 321, "hop_length": 160,
       "pad_mode": "semicausal", "drop_last_frame": false, "power": 1.0, "mel_scale": "htk", "mel_norm": "none",
       "f_max": 8000, "log": "ln", "log_floor": 0.001, "log_floor_mode": "add", "frame_validity": "extent_end"},
      {"op": "transpose", "outputs": ["features"]},
      {"op": "emit_validity_mask", "inputs": ["features"], "outputs": ["mask"]},
      {"op": "emit_token_count", "inputs": ["features"], "outputs": ["tokens"], "max_tokens": 750,
       "convolutions": [{"kernel": 3, "stride": 2, "padding": 1}, {"kernel": 3, "stride": 2, "padding": 1}]}
    ],
    "outputs": [
      {"name": "input_features", "source": "features", "content": "audio_features", "dtype": "float32", "pad_value": 0.0},
      {"name": "input_features_mask", "source": "mask", "content": "validity_mask", "dtype": "bool"},
      {"name": "audio_soft_tokens", "source": "tokens", "content": "token_count", "dtype": "int64"}
    ]})");
}

TEST(Gemma4Program, RunsOnAWav) {
  const auto program = parse_audio_program(gemma4_program(), "preprocessing.audio");
  std::vector<float> x(22050 / 2);  // 0.5 s at 22.05 kHz -> 8000 samples at 16 kHz
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(0.3 * std::sin(0.05 * static_cast<double>(i)));
  const auto wav = encode_wav(x, 1, 22050, PcmEncoding::kF32, "clip");
  const auto out = program.run(wav, "clip");
  ASSERT_EQ(out.size(), 3u);
  // 8000 samples padded to 8064: floor((8064 + 160 - 321) / 160) + 1 = 50 frames, 49 valid.
  EXPECT_EQ(out[0].shape, (std::vector<std::int64_t>{1, 50, 128}));
  EXPECT_EQ(out[1].shape, (std::vector<std::int64_t>{1, 50}));
  ASSERT_TRUE(out[1].integer);
  EXPECT_EQ(std::count(out[1].i64.begin(), out[1].i64.end(), 1), 49);
  EXPECT_EQ(out[1].i64.back(), 0);
  for (std::size_t m = 0; m < 128; ++m) EXPECT_EQ(out[0].f32[49 * 128 + m], 0.0f);  // the invalid frame is zeroed
  EXPECT_NE(out[0].f32[48 * 128 + 10], 0.0f);
  EXPECT_EQ(out[2].i64, (std::vector<std::int64_t>{13}));  // 49 -> 25 -> 13
}

TEST(Gemma4Program, RefusalsNameThePath) {
  auto j = gemma4_program();
  j["transforms"][5]["preemphasis_htk_flavor"] = false;
  EXPECT_NE(load_error(j).find("transforms[5].preemphasis_htk_flavor"), std::string::npos);
  j = gemma4_program();
  j["transforms"][5]["frame_length"] = 600;
  EXPECT_NE(load_error(j).find("frame_length <= n_fft"), std::string::npos) << load_error(j);
  j = gemma4_program();
  j["transforms"][5]["frame_extent"] = 100;
  EXPECT_NE(load_error(j).find("frame_extent"), std::string::npos) << load_error(j);
  j = gemma4_program();
  j["transforms"][5]["frame_validity"] = "middle";
  EXPECT_NE(load_error(j).find("transforms[5].frame_validity"), std::string::npos);
  j = gemma4_program();
  j["transforms"][5]["preemphasis"] = 1.5;
  EXPECT_NE(load_error(j).find("preemphasis must be in [0, 1)"), std::string::npos) << load_error(j);
  j = gemma4_program();
  j["transforms"][4]["target_length"] = 1000;
  EXPECT_NE(load_error(j).find("transforms[4].multiple_of"), std::string::npos);
  j = gemma4_program();
  j["transforms"][8]["convolutions"][1] = {{"kernel", 3}, {"stride", 0}};
  EXPECT_NE(load_error(j).find("transforms[8].convolutions[1].stride"), std::string::npos) << load_error(j);
  j = gemma4_program();
  j["transforms"][8]["convolutions"][0]["dilation"] = 2;
  EXPECT_NE(load_error(j).find("convolutions[0].dilation"), std::string::npos) << load_error(j);
  j = gemma4_program();
  j["outputs"][0]["dtype"] = "bool";  // features are floats
  const auto program = parse_audio_program(j, "preprocessing.audio");
  const auto wav = encode_wav(std::vector<float>(1600, 0.1f), 1, 16000, PcmEncoding::kS16, "clip");
  try {
    program.run(wav, "clip");
    ADD_FAILURE() << "a bool features output ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.where()).find("outputs[0].dtype"), std::string::npos) << e.where();
  }
}

TEST(Gemma4Program, PaddingIsHeldToTheDecodeBudget) {
  auto j = gemma4_program();
  j["transforms"][4]["multiple_of"] = std::int64_t{1} << 40;  // 4 TiB of float samples
  const auto program = parse_audio_program(j, "preprocessing.audio");
  const auto wav = encode_wav(std::vector<float>(1600, 0.1f), 1, 16000, PcmEncoding::kS16, "clip");
  try {
    program.run(wav, "clip");
    ADD_FAILURE() << "a 2^40-sample pad ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.where()).find("transforms[4]"), std::string::npos) << e.where();
    EXPECT_NE(std::string(e.message()).find("decoded size limit"), std::string::npos) << e.message();
  }
  j = gemma4_program();
  j["transforms"][3] = {{"op", "pad"}, {"mode", "fixed_window"}, {"target_length", std::int64_t{1} << 36}};
  try {
    parse_audio_program(j, "preprocessing.audio").run(wav, "clip");
    ADD_FAILURE() << "a 2^36-sample window ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.message()).find("decoded size limit"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace ogai::media::audio
