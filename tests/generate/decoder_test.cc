#include "generate/decoder.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "base/error.h"
#include "stories_spec.h"

namespace ogai::generate {
namespace {

const std::vector<TokenId> kPrompt = {1, 403, 407, 261, 378};
const std::vector<TokenId> kGolden = {432, 383, 286, 261, 376, 298, 315, 421, 395, 317};

TokenId argmax(std::span<const float> v) {
  return static_cast<TokenId>(std::max_element(v.begin(), v.end()) - v.begin());
}

std::vector<TokenId> greedy(const Decoder& d, std::vector<TokenId> prompt, int n) {
  kv::KvCache cache(d.spec().cache, 1);
  AttentionState attention(1);
  std::vector<TokenId> out;
  auto step = d.step(prompt, static_cast<std::int64_t>(prompt.size()), {}, attention, cache);
  TokenId next = argmax(step.row_logits(0, static_cast<std::int64_t>(prompt.size()) - 1));
  for (int i = 0; i < n; ++i) {
    out.push_back(next);
    std::vector<TokenId> t = {next};
    step = d.step(t, 1, {}, attention, cache);
    next = argmax(step.row_logits(0, 0));
  }
  return out;
}

TEST(DecoderTest, GreedyReproducesGoldenIds) {
  Decoder d(testing::stories_spec(), {});
  EXPECT_EQ(greedy(d, kPrompt, 10), kGolden);
}

TEST(DecoderTest, LeftPaddedBatchRowEqualsSingleRow) {
  Decoder d(testing::stories_spec(), {});
  // Row 0: the prompt; row 1: a shorter prompt left-padded to the same length.
  std::vector<TokenId> shorter = {1, 403, 407};
  std::vector<TokenId> tokens = kPrompt;
  std::vector<std::uint8_t> real(10, 1);
  tokens.insert(tokens.end(), {0, 0, 1, 403, 407});
  real[5] = real[6] = 0;
  kv::KvCache cache(d.spec().cache, 2);
  AttentionState attention(2);
  auto step = d.step(tokens, 5, real, attention, cache);
  EXPECT_EQ(argmax(step.row_logits(0, 4)), 432);
  Decoder single(testing::stories_spec(), {});
  kv::KvCache c1(single.spec().cache, 1);
  AttentionState a1(1);
  auto alone = single.step(shorter, 3, {}, a1, c1);
  auto batched_row = step.row_logits(1, 4);
  auto alone_row = alone.row_logits(0, 2);
  for (std::size_t i = 0; i < batched_row.size(); ++i) ASSERT_NEAR(batched_row[i], alone_row[i], 1e-4);
  EXPECT_EQ(attention.real_tokens(1), 3);
  EXPECT_EQ(attention.length(), 5);
}

TEST(DecoderTest, RewindThenReplayMatches) {
  Decoder d(testing::stories_spec(), {});
  kv::KvCache cache(d.spec().cache, 1);
  AttentionState attention(1);
  d.step(kPrompt, 5, {}, attention, cache);
  std::vector<TokenId> a = {432}, b = {999 % 512};
  auto first = d.step(a, 1, {}, attention, cache);
  TokenId expected = argmax(first.row_logits(0, 0));
  d.step(b, 1, {}, attention, cache);
  cache.rewind(6);
  attention.truncate(6);
  EXPECT_EQ(cache.length(), 6);
  std::vector<TokenId> again = {383};
  auto replay = d.step(again, 1, {}, attention, cache);
  EXPECT_EQ(expected, 383);
  EXPECT_EQ(argmax(replay.row_logits(0, 0)), 286);
}

TEST(DecoderTest, SpecNamingAMissingPortIsRejected) {
  auto spec = testing::stories_spec();
  spec.position_input = "positions";
  try {
    Decoder d(spec, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'positions'"), std::string::npos) << e.what();
  }
  spec = testing::stories_spec();
  spec.position_input.clear();
  try {
    Decoder d(spec, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'position_ids'"), std::string::npos) << e.what();
  }
}

TEST(DecoderTest, ContextLimitIsEnforced) {
  auto spec = testing::stories_spec();
  spec.cache.max_length = 6;
  Decoder d(spec, {});
  kv::KvCache cache(d.spec().cache, 1);
  AttentionState attention(1);
  d.step(kPrompt, 5, {}, attention, cache);
  std::vector<TokenId> t = {432};
  d.step(t, 1, {}, attention, cache);
  EXPECT_THROW(d.step(t, 1, {}, attention, cache), Error);
  EXPECT_EQ(attention.length(), 6);  // the failed step left no trace
  EXPECT_EQ(cache.length(), 6);
}

}  // namespace
}  // namespace ogai::generate
