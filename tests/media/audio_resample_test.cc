// Resampling through libsoxr (src/media/audio/resample.h): lengths, levels, band limiting.
#include <gtest/gtest.h>

#include "audio_support.h"
#include "media/audio/resample.h"
#include "ogai/error.h"

namespace ogai::media::audio {
namespace {

using test::rms;
using test::sine;

TEST(Resample, LengthIsRoundedRatio) {
  EXPECT_EQ(resampled_length(64, 48000, 24000), 32u);
  EXPECT_EQ(resampled_length(4410, 44100, 16000), 1600u);
  EXPECT_EQ(resampled_length(3, 44100, 32000), 2u);  // 2.18 -> 2
  EXPECT_EQ(resampled_length(0, 8000, 48000), 0u);
  const auto out = resample_channel(sine(44100, 1000, 4410), 44100, 32000, "x");
  EXPECT_EQ(out.size(), 3200u);
}

TEST(Resample, KeepsInBandLevelsPerChannel) {
  const auto left = sine(44100, 1000, 4410), right = sine(44100, 2000, 4410, 0.25);
  Waveform w{44100, 2, left};
  w.samples.insert(w.samples.end(), right.begin(), right.end());
  const Waveform out = resample(w, 32000, "x");
  ASSERT_EQ(out.channels, 2);
  ASSERT_EQ(out.frames(), 3200u);
  const std::vector<float> l(out.channel(0).begin(), out.channel(0).end()), r(out.channel(1).begin(), out.channel(1).end());
  EXPECT_NEAR(rms(l, 200, 3000) / rms(left, 300, 4100), 1.0, 0.01);
  EXPECT_NEAR(rms(r, 200, 3000) / rms(right, 300, 4100), 1.0, 0.01);
  // The samples follow the tone itself: compare with the 1 kHz sine at 32 kHz.
  const auto want = sine(32000, 1000, 3200);
  for (std::size_t i = 100; i < 3100; ++i) ASSERT_NEAR(l[i], want[i], 2e-3) << i;
}

TEST(Resample, RemovesWhatTheNewRateCannotHold) {
  const auto high = sine(44100, 18000, 4410);  // above 16 kHz, the Nyquist frequency of 32 kHz
  const auto out = resample_channel(high, 44100, 32000, "x");
  EXPECT_LT(rms(out, 200, 3000), 0.001) << "aliased energy";
}

TEST(Resample, SameRateIsACopyAndBadRatesAreRefused) {
  const auto x = sine(16000, 300, 100);
  EXPECT_EQ(resample_channel(x, 16000, 16000, "x"), x);
  try {
    resample_channel(x, 0, 16000, "preprocessing.audio.transforms[1]");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "preprocessing.audio.transforms[1]");
  }
}

}  // namespace
}  // namespace ogai::media::audio
