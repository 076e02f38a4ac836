// Penalties against HF's and OpenAI's formulas on cases worked out by hand.
#include "sampling/penalties.h"

#include <gtest/gtest.h>

#include <vector>

#include "base/error.h"
#include "sampling/sampler.h"

namespace ogai::sampling {
namespace {

TEST(TokenHistoryTest, TracksDistinctIdsAndGeneratedCounts) {
  TokenHistory history;
  std::vector<TokenId> prompt = {4, 1, 4, 0};
  history.reset(6, prompt);
  EXPECT_EQ(std::vector<int32_t>(history.seen_ids().begin(), history.seen_ids().end()),
            (std::vector<int32_t>{4, 1, 0}));
  EXPECT_TRUE(history.generated_ids().empty());
  history.push(1);
  history.push(5);
  history.push(1);
  EXPECT_EQ(std::vector<int32_t>(history.seen_ids().begin(), history.seen_ids().end()),
            (std::vector<int32_t>{4, 1, 0, 5}));
  EXPECT_EQ(std::vector<int32_t>(history.generated_ids().begin(), history.generated_ids().end()),
            (std::vector<int32_t>{1, 5}));
  EXPECT_EQ(history.generated_count(1), 2u);
  EXPECT_EQ(history.generated_count(4), 0u);
  EXPECT_EQ(history.generated_total(), 3);
  // A reset of the same size clears only what was touched, and forgets it all.
  std::vector<TokenId> other = {2};
  history.reset(6, other);
  EXPECT_EQ(history.seen_ids().size(), 1u);
  EXPECT_EQ(history.generated_count(1), 0u);
  EXPECT_EQ(history.generated_total(), 0);
}

TEST(TokenHistoryTest, RejectsIdsOutsideTheVocabulary) {
  TokenHistory history;
  std::vector<TokenId> prompt = {1, 9};
  EXPECT_THROW(history.reset(6, prompt), Error);
  history.reset(6, {});
  EXPECT_THROW(history.push(6), Error);
  EXPECT_THROW(history.push(-1), Error);
}

TEST(PenaltiesTest, RepetitionPenaltyDividesPositiveMultipliesNegativeOncePerId) {
  // HF: score < 0 ? score * penalty : score / penalty, for each distinct id of prompt + output.
  std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, -2.0f, 0.0f};
  TokenHistory history;
  std::vector<TokenId> prompt = {0, 1, 1, 5};
  history.reset(6, prompt);
  history.push(3);
  history.push(3);
  apply_repetition_penalty(logits, history, 2.0f);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, -2.0f, 0.5f, 1.5f, -2.0f, 0.0f}));
}

TEST(PenaltiesTest, RepetitionPenaltyBelowOneRewards) {
  std::vector<float> logits = {2.0f, -1.0f};
  TokenHistory history;
  std::vector<TokenId> prompt = {0, 1};
  history.reset(2, prompt);
  apply_repetition_penalty(logits, history, 0.5f);
  EXPECT_EQ(logits, (std::vector<float>{4.0f, -0.5f}));
}

TEST(PenaltiesTest, FrequencyAndPresenceCountGeneratedTokensOnly) {
  // OpenAI/vLLM: x -= frequency * count; x -= presence * (count > 0); prompt ids do not count.
  std::vector<float> logits = {1.0f, 1.0f, 1.0f, 1.0f};
  TokenHistory history;
  std::vector<TokenId> prompt = {0, 0, 0};
  history.reset(4, prompt);
  history.push(2);
  history.push(2);
  history.push(2);
  history.push(3);
  apply_frequency_presence(logits, history, 0.5f, 0.25f);
  EXPECT_EQ(logits, (std::vector<float>{1.0f, 1.0f, 1.0f - 1.5f - 0.25f, 1.0f - 0.5f - 0.25f}));
}

TEST(PenaltiesTest, NegativePenaltiesEncourage) {
  std::vector<float> logits = {0.0f, 0.0f};
  TokenHistory history;
  history.reset(2, {});
  history.push(1);
  apply_frequency_presence(logits, history, -1.0f, -2.0f);
  EXPECT_EQ(logits, (std::vector<float>{0.0f, 3.0f}));
}

TEST(PenaltiesTest, SamplerAppliesBiasThenRepetitionThenFrequencyPresence) {
  SamplingParams params;
  params.do_sample = false;
  params.logit_bias = {{0, -3.0}, {2, 1.5}};
  params.repetition_penalty = 2.0;
  params.frequency_penalty = 0.5;
  params.presence_penalty = 0.25;
  Sampler sampler(params, 5);
  std::vector<TokenId> prompt = {0, 1, 1};
  sampler.reset(prompt);
  sampler.accept(3);
  sampler.accept(3);
  sampler.accept(1);
  std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, -2.0f};
  EXPECT_EQ(sampler.sample(logits), 2);
  // id0: (2 - 3) = -1, penalized * 2 = -2. id1: -1 * 2 = -2, then - 0.5 - 0.25 = -2.75.
  // id2: 0.5 + 1.5 = 2 (not in history). id3: 3 / 2 = 1.5, - 2 * 0.5 - 0.25 = 0.25. id4: -2.
  EXPECT_EQ(logits, (std::vector<float>{-2.0f, -2.75f, 2.0f, 0.25f, -2.0f}));
}

}  // namespace
}  // namespace ogai::sampling
