// Whisper segments (serve/audio/whisper_segments.h): a window's tokens split at timestamp pairs as
// OpenAI whisper's transcribe() does, where the next window starts, and the srt / vtt cues made of
// the segments (transcript_render.h). T = 100 is <|0.00|>, eos 50, specials 50..99.
#include <gtest/gtest.h>

#include "serve/audio/transcript_render.h"
#include "serve/audio/whisper_segments.h"

namespace ogai::serve {
namespace {

constexpr TokenId T = 100, kEos = 50;

TEST(WhisperSegments, PairsSplitAndTheUnfinishedTailIsDropped) {
  // <0.00> a b <1.00><1.00> c <2.50><2.50> d (unfinished)
  const std::vector<TokenId> ids{T, 1, 2, T + 50, T + 50, 3, T + 125, T + 125, 4};
  const WindowSplit s = split_window(ids, T, kEos, 30.0);
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_DOUBLE_EQ(s.segments[0].start, 0.0);
  EXPECT_DOUBLE_EQ(s.segments[0].end, 1.0);
  EXPECT_EQ(s.segments[0].text, (std::vector<TokenId>{1, 2}));
  EXPECT_DOUBLE_EQ(s.segments[1].start, 1.0);
  EXPECT_DOUBLE_EQ(s.segments[1].end, 2.5);
  EXPECT_EQ(s.segments[1].text, (std::vector<TokenId>{3}));
  ASSERT_TRUE(s.advance.has_value());
  EXPECT_EQ(*s.advance, 125);  // the next window starts at the last pair: 2.5 s
}

TEST(WhisperSegments, ASingleTimestampEndingKeepsTheLastSegmentAndSkipsTheWindow) {
  const std::vector<TokenId> ids{T, 1, T + 50, T + 50, 2, T + 100, kEos};
  const WindowSplit s = split_window(ids, T, kEos, 30.0);
  ASSERT_EQ(s.segments.size(), 2u);
  EXPECT_DOUBLE_EQ(s.segments[1].start, 1.0);
  EXPECT_DOUBLE_EQ(s.segments[1].end, 2.0);
  EXPECT_EQ(s.segments[1].text, (std::vector<TokenId>{2}));
  EXPECT_FALSE(s.advance.has_value());
}

TEST(WhisperSegments, WithoutAPairOneSegmentSpansTheWindowOrItsLastTimestamp) {
  const WindowSplit plain = split_window(std::vector<TokenId>{1, 2, kEos}, T, kEos, 12.5);
  ASSERT_EQ(plain.segments.size(), 1u);
  EXPECT_DOUBLE_EQ(plain.segments[0].end, 12.5);
  EXPECT_EQ(plain.segments[0].text, (std::vector<TokenId>{1, 2}));
  const WindowSplit stamped = split_window(std::vector<TokenId>{T, 1, 2, T + 40}, T, kEos, 12.5);
  ASSERT_EQ(stamped.segments.size(), 1u);
  EXPECT_DOUBLE_EQ(stamped.segments[0].end, 0.8);
  EXPECT_FALSE(stamped.advance.has_value());
  // Specials other than timestamps are dropped.
  const WindowSplit specials = split_window(std::vector<TokenId>{60, 1, 70}, T, kEos, 1.0);
  EXPECT_EQ(specials.segments[0].text, (std::vector<TokenId>{1}));
}

TEST(WhisperSegments, CuesCarryTheSegmentTimes) {
  Transcript t;
  t.text = "a b";
  t.segments.push_back({0.0, 1.5, "a", {}, 0});
  t.segments.push_back({31.02, 3723.456, "b", {}, 0});
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kSrt).body,
            "1\n00:00:00,000 --> 00:00:01,500\na\n\n2\n00:00:31,020 --> 01:02:03,456\nb\n\n");
  EXPECT_EQ(render_transcript(t, TranscriptFormat::kVtt).body,
            "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\na\n\n00:00:31.020 --> 01:02:03.456\nb\n\n");
}

}  // namespace
}  // namespace ogai::serve
