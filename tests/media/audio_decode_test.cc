// Decoding through libsndfile (src/media/audio/decode.h): every accepted container, channel
// layout and rate, and the hostile inputs (empty, junk, wrong type, truncated, zero-length, a
// 10-hour header, budgets), each refused with an error that names the input.
#include <gtest/gtest.h>

#include <malloc.h>

#include <cstring>

#include "audio_support.h"
#include "media/audio/decode.h"
#include "ogai/error.h"

namespace ogai::media::audio {
namespace {

using test::encode_file;
using test::rms;
using test::scratch_dir;
using test::sine;

std::vector<float> stereo(const std::vector<float>& left, const std::vector<float>& right) {
  std::vector<float> out;
  for (std::size_t i = 0; i < left.size(); ++i) out.insert(out.end(), {left[i], right[i]});
  return out;
}

std::string error_of(std::span<const std::uint8_t> bytes, const DecodeLimits& limits = {}) {
  try {
    decode_audio(bytes, "request.audio", limits);
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "request.audio");
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    return e.what();
  }
  return "";
}

struct Container {
  const char* name;
  int format;
  double tolerance;  // max |decoded - written| (lossless) or relative RMS error (lossy)
  bool lossy;
};

class DecodeContainers : public ::testing::TestWithParam<Container> {};

TEST_P(DecodeContainers, KeepsRateChannelsAndSignal) {
  const auto& c = GetParam();
  const auto left = sine(16000, 440, 16000), right = sine(16000, 1000, 16000, 0.25);
  const auto bytes = encode_file(scratch_dir("decode") / c.name, c.format, 16000, 2, stereo(left, right));
  ASSERT_FALSE(bytes.empty()) << "libsndfile could not write " << c.name;
  const Waveform w = decode_audio(bytes, "request.audio");
  EXPECT_EQ(w.sample_rate, 16000);
  ASSERT_EQ(w.channels, 2);
  ASSERT_GT(w.frames(), 15000u);
  const std::vector<float> l(w.channel(0).begin(), w.channel(0).end()), r(w.channel(1).begin(), w.channel(1).end());
  if (!c.lossy) {
    ASSERT_EQ(w.frames(), left.size());
    for (std::size_t i = 0; i < left.size(); ++i) {
      ASSERT_NEAR(l[i], left[i], c.tolerance) << c.name << " frame " << i;
      ASSERT_NEAR(r[i], right[i], c.tolerance) << c.name << " frame " << i;
    }
  } else {  // lossy codecs: the level of each channel survives (and the channels stay apart)
    EXPECT_NEAR(rms(l, 4000, 12000) / rms(left, 4000, 12000), 1.0, c.tolerance) << c.name;
    EXPECT_NEAR(rms(r, 4000, 12000) / rms(right, 4000, 12000), 1.0, c.tolerance) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, DecodeContainers,
    ::testing::Values(Container{"s16.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 1.0 / 32768, false},
                      Container{"f32.wav", SF_FORMAT_WAV | SF_FORMAT_FLOAT, 0.0, false},
                      Container{"s24.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_24, 1.0 / 8388608 * 1.01, false},
                      Container{"vorbis.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 0.05, true},
                      Container{"opus.opus", SF_FORMAT_OGG | SF_FORMAT_OPUS, 0.05, true},
                      Container{"mp3.mp3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, 0.05, true}),
    [](const auto& info) { return std::string(info.param.name).substr(0, std::string(info.param.name).find('.')); });

TEST(Decode, MonoAt44100) {
  const auto x = sine(44100, 300, 4410);
  const auto bytes = encode_file(scratch_dir("decode") / "mono44k.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 44100, 1, x);
  const Waveform w = decode_audio(bytes, "clip");
  EXPECT_EQ(w.sample_rate, 44100);
  EXPECT_EQ(w.channels, 1);
  EXPECT_EQ(w.frames(), 4410u);
}

TEST(DecodeHostile, EmptyInput) { EXPECT_NE(error_of({}).find("empty"), std::string::npos); }

TEST(DecodeHostile, JunkAndWrongType) {
  const std::string junk(400, 'x');
  EXPECT_NE(error_of({reinterpret_cast<const std::uint8_t*>(junk.data()), junk.size()}).find("cannot decode"),
            std::string::npos);
  // A PNG signature and header: an image handed to an audio input.
  const std::uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                              0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0, 0x90, 0x77, 0x53, 0xde};
  const auto e = error_of(png);
  EXPECT_NE(e.find("cannot decode"), std::string::npos) << e;
  EXPECT_NE(e.find("WAV, FLAC"), std::string::npos) << e;  // says what it takes
}

TEST(DecodeHostile, TruncatedWavAndFlac) {
  const auto x = sine(16000, 440, 16000);
  auto wav = encode_file(scratch_dir("decode") / "t.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 1, x);
  wav.resize(1000);
  EXPECT_NE(error_of(wav).find("truncated"), std::string::npos) << error_of(wav);
  auto flac = encode_file(scratch_dir("decode") / "t.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16000, 1, x);
  flac.resize(flac.size() / 2);
  const auto e = error_of(flac);
  EXPECT_TRUE(e.find("truncated") != std::string::npos || e.find("corrupt") != std::string::npos) << e;
}

// A canonical 16-bit PCM WAV header declaring `data_bytes`, followed by `payload` bytes.
std::vector<std::uint8_t> wav_header(std::uint32_t data_bytes, std::size_t payload, std::uint32_t rate = 16000) {
  std::vector<std::uint8_t> b(44 + payload, 0);
  auto put32 = [&](std::size_t at, std::uint32_t v) { std::memcpy(&b[at], &v, 4); };
  auto put16 = [&](std::size_t at, std::uint16_t v) { std::memcpy(&b[at], &v, 2); };
  std::memcpy(&b[0], "RIFF", 4), put32(4, 36 + data_bytes), std::memcpy(&b[8], "WAVEfmt ", 8);
  put32(16, 16), put16(20, 1), put16(22, 1), put32(24, rate), put32(28, rate * 2), put16(32, 2), put16(34, 16);
  std::memcpy(&b[36], "data", 4), put32(40, data_bytes);
  return b;
}

TEST(DecodeHostile, TenHourHeaderIsRefusedFromTheHeader) {
  const auto bytes = wav_header(10u * 3600u * 16000u * 2u, 100);  // 1.15 GB declared, 100 bytes present
  const auto e = error_of(bytes);
  EXPECT_NE(e.find("header declares 576000000 frames"), std::string::npos) << e;
  EXPECT_NE(e.find("36000.0 s"), std::string::npos) << e;
  EXPECT_NE(e.find("3600 s"), std::string::npos) << e;  // the limit
}

TEST(DecodeHostile, ZeroLengthAudio) {
  const auto e = error_of(wav_header(0, 0));
  EXPECT_NE(e.find("zero-length"), std::string::npos) << e;
}

TEST(DecodeHostile, BudgetsFromFlags) {
  const auto x = sine(16000, 440, 16000);  // 1 s
  const auto wav = encode_file(scratch_dir("decode") / "b.wav", SF_FORMAT_WAV | SF_FORMAT_PCM_16, 16000, 1, x);
  const auto flac = encode_file(scratch_dir("decode") / "b.flac", SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 16000, 1, x);
  EXPECT_NE(error_of(wav, {0.5, 1ull << 30}).find("the limits are 0.5 s"), std::string::npos);
  EXPECT_NE(error_of(flac, {0.5, 1ull << 30}).find("the limits are 0.5 s"), std::string::npos);
  EXPECT_NE(error_of(flac, {100, 1000}).find("1000 decoded bytes"), std::string::npos);
  EXPECT_NO_THROW(decode_audio(flac, "clip", {1.0, 64000}));  // exactly at both limits
}


// Debian 12's libsndfile leaks ~5.8 KB each time it fails to open a corrupt Ogg Vorbis stream;
// decode_audio checks Vorbis headers with libvorbisfile first, so refusing one costs nothing.
TEST(DecodeHostile, CorruptOggVorbisIsRefusedWithoutLeaking) {
  auto ogg = encode_file(scratch_dir("decode") / "leak.ogg", SF_FORMAT_OGG | SF_FORMAT_VORBIS, 16000, 1, sine(16000, 440, 16000));
  ASSERT_GT(ogg.size(), 200u);
  ogg.resize(120);  // the identification header survives, the comment and setup headers do not
  EXPECT_NE(error_of(ogg).find("Ogg Vorbis stream is corrupt"), std::string::npos) << error_of(ogg);
  const auto before = mallinfo2().uordblks;
  for (int i = 0; i < 200; ++i) EXPECT_FALSE(error_of(ogg).empty());
  EXPECT_LT(mallinfo2().uordblks - std::min(before, mallinfo2().uordblks), 100u * 1024)
      << "refusing 200 corrupt Ogg Vorbis files kept memory (libsndfile's leak would keep ~1.1 MB)";
}

}  // namespace
}  // namespace ogai::media::audio
