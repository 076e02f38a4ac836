// Media outputs (src/workflow/media_output.h): the speech output rule and WAV encoding of an
// audio output through its media contract, on the speech_wav fixture's declarations.
#include <gtest/gtest.h>

#include <cstring>
#include <numbers>

#include "media/audio/decode.h"
#include "support.h"
#include "workflow/media_output.h"

namespace ogai::workflow {
namespace {

using testing::f32;

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

const metadata::Workflow& speech_wf() { return testing::program("speech_wav").workflow(); }

// [rows, 2, n]: left a 1 kHz sine at 48 kHz, right half its level.
ort::Tensor stereo(std::size_t n, std::int64_t rows = 1) {
  std::vector<float> v;
  for (std::int64_t r = 0; r < rows; ++r)
    for (int c = 0; c < 2; ++c)
      for (std::size_t i = 0; i < n; ++i)
        v.push_back(static_cast<float>((c ? 0.25 : 0.5) * std::sin(2 * std::numbers::pi * 1000 * i / 48000.0)));
  return f32(v, {rows, 2, static_cast<std::int64_t>(n)});
}

TEST(MediaOutput, SpeechOutputRule) {
  EXPECT_EQ(buffered_pcm16_wav_outputs(speech_wf()), std::vector<std::string>{"audio"});
  EXPECT_EQ(the_speech_output(speech_wf()), "audio");
  metadata::Workflow two = speech_wf();
  two.outputs.emplace_back("audio_b", two.outputs.front().second);
  try {
    the_speech_output(two);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(audio, audio_b)"), std::string::npos) << e.what();
  }
  metadata::Workflow none = speech_wf();
  none.outputs.front().second.media->delivery = "streaming";
  EXPECT_THROW(the_speech_output(none), Error);
}

TEST(MediaOutput, FixtureContractResamplesAndEncodesPcm16) {
  const auto wavs = encode_wav_output(speech_wf(), "audio", stereo(64));
  ASSERT_EQ(wavs.size(), 1u);
  const auto& wav = wavs[0];
  ASSERT_EQ(wav.size(), 44u + 128u);
  EXPECT_EQ(std::string(wav.begin(), wav.begin() + 4), "RIFF");
  EXPECT_EQ(std::string(wav.begin() + 8, wav.begin() + 16), "WAVEfmt ");
  EXPECT_EQ(u16(wav, 20), 1);
  EXPECT_EQ(u16(wav, 22), 2);
  EXPECT_EQ(u32(wav, 24), 24000u);
  EXPECT_EQ(u16(wav, 34), 16);
  EXPECT_EQ(u32(wav, 40), 128u);  // 48 kHz -> 24 kHz halves 64 samples: 32 x 2 channels x 2 bytes
}

TEST(MediaOutput, ResampledSignalSurvivesTheRoundTrip) {
  const auto wav = encode_wav_output(speech_wf(), "audio", stereo(4800))[0];
  const auto back = media::audio::decode_audio(wav, "audio.wav");
  ASSERT_EQ(back.sample_rate, 24000);
  ASSERT_EQ(back.frames(), 2400u);
  for (std::size_t i = 200; i < 2200; ++i) {  // the 1 kHz tone at 24 kHz, per channel level
    const double want = std::sin(2 * std::numbers::pi * 1000 * i / 24000.0);
    ASSERT_NEAR(back.channel(0)[i], 0.5 * want, 2e-3) << i;
    ASSERT_NEAR(back.channel(1)[i], 0.25 * want, 2e-3) << i;
  }
}

TEST(MediaOutput, Float32EncodingAndRows) {
  metadata::Workflow wf = speech_wf();
  wf.outputs.front().second.media->encoding = "pcm_f32_le";
  const auto wavs = encode_wav_output(wf, "audio", stereo(64, 3));
  ASSERT_EQ(wavs.size(), 3u);  // one file per row
  const auto back = media::audio::decode_audio(wavs[2], "audio.wav");
  EXPECT_EQ(u16(wavs[2], 20), 3);  // IEEE float
  EXPECT_EQ(back.frames(), 32u);
}

TEST(MediaOutput, RefusesWhatTheContractDoesNotAllow) {
  EXPECT_THROW(encode_wav_output(speech_wf(), "waveform", stereo(64)), Error);  // undeclared name
  EXPECT_THROW(encode_wav_output(speech_wf(), "audio", f32(std::vector<float>(64), {1, 1, 64})), Error);  // 1 channel
  metadata::Workflow wf = speech_wf();
  wf.outputs.front().second.media->encoding = "mulaw";
  EXPECT_THROW(encode_wav_output(wf, "audio", stereo(64)), Error);
  wf = speech_wf();
  wf.outputs.front().second.stage = "post_adapter";
  const auto wav = encode_wav_output(speech_wf(), "audio", stereo(64))[0];
  const auto bytes = ort::Tensor::copy_of(std::span<const std::uint8_t>(wav), {static_cast<std::int64_t>(wav.size())});
  EXPECT_EQ(encode_wav_output(wf, "audio", bytes)[0], wav);  // a WAV passes through, checked
  const auto cut = ort::Tensor::copy_of(std::span<const std::uint8_t>(wav.data(), 100), {100});
  EXPECT_THROW(encode_wav_output(wf, "audio", cut), Error);
}

}  // namespace
}  // namespace ogai::workflow
