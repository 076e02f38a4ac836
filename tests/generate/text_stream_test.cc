#include "generate/text_stream.h"

#include <gtest/gtest.h>

#include <random>

namespace ogai::generate {
namespace {

const std::string kTokenizer = std::string(OGAI_SHARED_DIR) + "/models/stories260k/tokenizer.json";

std::string stream_all(const tokenizer::Tokenizer& t, std::span<const std::int32_t> prompt,
                       std::span<const std::int32_t> generated, std::vector<std::string> stops = {}) {
  TextStream stream(t, std::move(stops), prompt);
  std::string text;
  for (auto id : generated) {
    text += stream.push(id);
    if (stream.stopped()) return text;
  }
  text += stream.finish();
  EXPECT_EQ(text, stream.text());
  return text;
}

TEST(TextStreamTest, FirstTokenKeepsItsLeadingSpaceAfterAPrompt) {
  auto t = tokenizer::Tokenizer::load(kTokenizer);
  auto prompt = t.encode("The little dog", true);
  auto was = t.encode("The little dog was", true);
  std::vector<std::int32_t> generated(was.begin() + static_cast<std::ptrdiff_t>(prompt.size()), was.end());
  EXPECT_EQ(stream_all(t, prompt, generated), " was");
  EXPECT_EQ(stream_all(t, {}, generated), "was");  // no prompt: start-of-text rules apply
}

TEST(TextStreamTest, EqualsFullDecodeMinusPromptDecode) {
  auto t = tokenizer::Tokenizer::load(kTokenizer);
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int32_t> id(3, 511);  // no special tokens
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::int32_t> prompt = {1}, generated;
    const int prompt_length = 1 + trial % 20;  // shorter and longer than the priming window
    for (int i = 0; i < prompt_length; ++i) prompt.push_back(id(rng));
    for (int i = 0; i < 25; ++i) generated.push_back(id(rng));
    std::vector<std::int32_t> all = prompt;
    all.insert(all.end(), generated.begin(), generated.end());
    std::string full = t.decode(all, true), prefix = t.decode(prompt, true);
    if (full.compare(0, prefix.size(), prefix) != 0) continue;  // a character spans the boundary
    ASSERT_EQ(stream_all(t, prompt, generated), full.substr(prefix.size())) << "trial " << trial;
    ++checked;
  }
  EXPECT_GT(checked, 200);
}

TEST(TextStreamTest, StopStringSplitAcrossTokensIsNeverEmitted) {
  auto t = tokenizer::Tokenizer::load(kTokenizer);
  auto prompt = t.encode("Once upon a time", true);
  auto all = t.encode("Once upon a time, there was a little girl named Lily.", true);
  std::vector<std::int32_t> generated(all.begin() + static_cast<std::ptrdiff_t>(prompt.size()), all.end());
  TextStream stream(t, {"girl na"}, prompt);
  std::string emitted;
  for (auto id : generated) {
    emitted += stream.push(id);
    EXPECT_EQ(emitted.find("girl n"), std::string::npos);
    if (stream.stopped()) break;
  }
  EXPECT_TRUE(stream.stopped());
  EXPECT_EQ(emitted, ", there was a little ");
}

}  // namespace
}  // namespace ogai::generate
