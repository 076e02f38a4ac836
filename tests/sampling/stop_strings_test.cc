#include "sampling/stop_strings.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "sampling/rng.h"

namespace ogai::sampling {
namespace {

struct Outcome {
  std::string emitted;
  bool stopped = false;
  int stop_index = -1;
  std::vector<std::string> pieces;  // what each feed() returned
};

Outcome stream(const std::vector<std::string>& stops, const std::vector<std::string>& chunks) {
  StopStringMatcher matcher(stops);
  Outcome out;
  for (const std::string& chunk : chunks) {
    StopFeedResult r = matcher.feed(chunk);
    out.emitted += r.text;
    out.pieces.push_back(r.text);
    if (r.stopped) {
      out.stopped = true;
      out.stop_index = r.stop_index;
      return out;
    }
  }
  out.emitted += matcher.finish();
  return out;
}

// Every way of cutting `text` into chunks of 1..3 bytes, drawn with a seeded Rng.
std::vector<std::vector<std::string>> chunkings(const std::string& text, int count) {
  std::vector<std::vector<std::string>> all = {{text}};
  std::vector<std::string> bytes;
  for (char c : text) bytes.emplace_back(1, c);
  all.push_back(bytes);
  Rng rng(1);
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> chunks;
    for (size_t at = 0; at < text.size();) {
      size_t len = 1 + rng.next() % 3;
      chunks.push_back(text.substr(at, len));
      at += len;
    }
    all.push_back(chunks);
  }
  return all;
}

TEST(StopStringsTest, StopSplitAcrossChunksIsFoundAndNeverEmitted) {
  Outcome out = stream({"</end>"}, {"Hello", " world<", "/e", "nd", "> tail"});
  EXPECT_TRUE(out.stopped);
  EXPECT_EQ(out.emitted, "Hello world");
  EXPECT_EQ(out.stop_index, 0);
  // "<" is held back when it arrives, and so are "</e" and "</end".
  EXPECT_EQ(out.pieces, (std::vector<std::string>{"Hello", " world", "", "", ""}));
}

TEST(StopStringsTest, NoPartialStopIsEverEmittedUnderAnyChunking) {
  const std::vector<std::string> stops = {"STOP", "\n\nUser:", "xyzzy"};
  const std::string text = "abc ST STO \n\nUse xyz STOP never";
  for (const auto& chunks : chunkings(text, 200)) {
    Outcome out = stream(stops, chunks);
    ASSERT_TRUE(out.stopped);
    EXPECT_EQ(out.emitted, "abc ST STO \n\nUse xyz ");
    std::string so_far;
    for (const std::string& piece : out.pieces) {
      so_far += piece;
      // Whatever was emitted so far is a prefix of the final text: nothing was taken back.
      EXPECT_EQ(out.emitted.compare(0, so_far.size(), so_far), 0);
    }
  }
}

TEST(StopStringsTest, HeldBackTextIsReleasedWhenItCannotStartAStop) {
  Outcome out = stream({"abc"}, {"x a", "b", "d"});
  EXPECT_FALSE(out.stopped);
  EXPECT_EQ(out.pieces, (std::vector<std::string>{"x ", "", "abd"}));
  EXPECT_EQ(out.emitted, "x abd");
  // Held text at the end of generation comes out of finish().
  StopStringMatcher matcher({"abc"});
  EXPECT_EQ(matcher.feed("zzab").text, "zz");
  EXPECT_EQ(matcher.finish(), "ab");
}

TEST(StopStringsTest, StopAtTheVeryStart) {
  Outcome out = stream({"###"}, {"##", "#", "more"});
  EXPECT_TRUE(out.stopped);
  EXPECT_EQ(out.emitted, "");
  out = stream({"###"}, {"###more"});
  EXPECT_TRUE(out.stopped);
  EXPECT_EQ(out.emitted, "");
}

TEST(StopStringsTest, OverlappingStopsEarliestEndWinsThenLongest) {
  // "bc" completes before "abcd" would: it wins under every chunking.
  for (const auto& chunks : chunkings("xabcd", 30)) {
    Outcome out = stream({"abcd", "bc"}, chunks);
    ASSERT_TRUE(out.stopped);
    EXPECT_EQ(out.emitted, "xa");
    EXPECT_EQ(out.stop_index, 1);
  }
  // Same end: the longer (earlier-starting) stop wins.
  for (const auto& chunks : chunkings("xabcd", 30)) {
    Outcome out = stream({"cd", "abcd"}, chunks);
    ASSERT_TRUE(out.stopped);
    EXPECT_EQ(out.emitted, "x");
    EXPECT_EQ(out.stop_index, 1);
  }
  // A stop that overlaps itself: "aab" inside "aaab".
  for (const auto& chunks : chunkings("aaab!", 30)) {
    Outcome out = stream({"aab"}, chunks);
    ASSERT_TRUE(out.stopped);
    EXPECT_EQ(out.emitted, "a");
  }
}

TEST(StopStringsTest, MultiByteUtf8IsHeldWhole) {
  Outcome out = stream({"\xE2\x80\x94" "END"}, {"caf\xC3\xA9 \xE2\x80", "\x94", "EN", "D"});
  EXPECT_TRUE(out.stopped);
  EXPECT_EQ(out.emitted, "caf\xC3\xA9 ");
}

TEST(StopStringsTest, NoStopsPassThroughAndMisuseIsAnError) {
  Outcome out = stream({}, {"a", "b"});
  EXPECT_EQ(out.pieces, (std::vector<std::string>{"a", "b"}));
  EXPECT_THROW(StopStringMatcher({"ok", ""}), Error);
  StopStringMatcher matcher({"x"});
  EXPECT_TRUE(matcher.feed("x").stopped);
  EXPECT_TRUE(matcher.stopped());
  EXPECT_EQ(matcher.finish(), "");
  EXPECT_THROW(matcher.feed("more"), Error);
}

}  // namespace
}  // namespace ogai::sampling
