// WAV encoding (src/media/audio/wav_encode.h), checked by decoding with libsndfile and by the
// header bytes themselves.
#include <gtest/gtest.h>

#include <cstring>

#include "audio_support.h"
#include "media/audio/decode.h"
#include "media/audio/wav_encode.h"
#include "ogai/error.h"

namespace ogai::media::audio {
namespace {

std::uint32_t u32(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, &b[at], 4);
  return v;
}
std::uint16_t u16(const std::vector<std::uint8_t>& b, std::size_t at) {
  std::uint16_t v;
  std::memcpy(&v, &b[at], 2);
  return v;
}

TEST(WavEncode, Pcm16HeaderIsCanonical) {
  const std::vector<float> planar = {0.0f, 1.0f, -1.0f, 0.5f};  // [2 channels, 2 frames]: L = 0, 1; R = -1, 0.5
  const auto wav = encode_wav(planar, 2, 32000, PcmEncoding::kS16, "audio");
  ASSERT_EQ(wav.size(), 44u + 8u);
  EXPECT_EQ(std::string(wav.begin(), wav.begin() + 4), "RIFF");
  EXPECT_EQ(u32(wav, 4), wav.size() - 8);
  EXPECT_EQ(std::string(wav.begin() + 8, wav.begin() + 16), "WAVEfmt ");
  EXPECT_EQ(u16(wav, 20), 1);  // PCM
  EXPECT_EQ(u16(wav, 22), 2);
  EXPECT_EQ(u32(wav, 24), 32000u);
  EXPECT_EQ(u32(wav, 28), 32000u * 4);  // byte rate
  EXPECT_EQ(u16(wav, 32), 4);           // block align
  EXPECT_EQ(u16(wav, 34), 16);
  EXPECT_EQ(std::string(wav.begin() + 36, wav.begin() + 40), "data");
  EXPECT_EQ(u32(wav, 40), 8u);
  // Interleaved frames: (L0, R0) = (0, -32768), (L1, R1) = (32767, round(0.5 * 32767) = 16384).
  const std::vector<std::uint8_t> data(wav.begin() + 44, wav.end());
  EXPECT_EQ(data, (std::vector<std::uint8_t>{0, 0, 0, 0x80, 0xff, 0x7f, 0x00, 0x40}));
}

class WavRoundTrip : public ::testing::TestWithParam<std::tuple<PcmEncoding, int>> {};

TEST_P(WavRoundTrip, DecodesToWhatWasEncoded) {
  const auto [encoding, channels] = GetParam();
  std::vector<float> planar;
  for (int c = 0; c < channels; ++c) {
    const auto ch = test::sine(24000, 300.0 * (c + 1), 2400, 0.9 / (c + 1));
    planar.insert(planar.end(), ch.begin(), ch.end());
  }
  planar[5] = 1.7f;  // out of range: clamped for pcm_s16, kept for pcm_f32
  const auto wav = encode_wav(planar, channels, 24000, encoding, "audio");
  EXPECT_EQ(wav, encode_wav(planar, channels, 24000, encoding, "audio"));  // deterministic bytes
  const Waveform back = decode_audio(wav, "audio.wav");
  ASSERT_EQ(back.sample_rate, 24000);
  ASSERT_EQ(back.channels, channels);
  ASSERT_EQ(back.samples.size(), planar.size());
  for (std::size_t i = 0; i < planar.size(); ++i) {
    if (encoding == PcmEncoding::kF32) {
      ASSERT_EQ(back.samples[i], planar[i]) << i;
    } else {
      // Encoded as round(x * 32767) (x clamped to [-1, 1]); libsndfile decodes a code as code / 32768.
      const float x = std::clamp(planar[i], -1.0f, 1.0f);
      const double code = x <= -1.0f ? -32768.0 : std::round(double{x} * 32767.0);
      ASSERT_EQ(back.samples[i], static_cast<float>(code / 32768.0)) << i;
    }
  }
  EXPECT_EQ(u16(wav, 20), encoding == PcmEncoding::kF32 ? 3 : 1);  // IEEE float or PCM
}

INSTANTIATE_TEST_SUITE_P(Encodings, WavRoundTrip,
                         ::testing::Combine(::testing::Values(PcmEncoding::kS16, PcmEncoding::kF32), ::testing::Values(1, 2, 3)));

TEST(WavEncode, RefusesWhatAWavCannotCarry) {
  const std::vector<float> nan = {0.0f, std::nanf("")};
  EXPECT_THROW(encode_wav(nan, 1, 16000, PcmEncoding::kS16, "audio"), Error);
  EXPECT_THROW(encode_wav({}, 0, 16000, PcmEncoding::kS16, "audio"), Error);
  EXPECT_THROW(encode_wav(std::vector<float>(3), 2, 16000, PcmEncoding::kS16, "audio"), Error);
  EXPECT_THROW(encode_wav(std::vector<float>(2), 1, 0, PcmEncoding::kF32, "audio"), Error);
  try {
    encode_wav(nan, 1, 16000, PcmEncoding::kF32, "outputs.audio");
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "outputs.audio");
    EXPECT_NE(std::string(e.what()).find("not finite"), std::string::npos);
  }
}

}  // namespace
}  // namespace ogai::media::audio
