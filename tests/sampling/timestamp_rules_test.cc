// Whisper's timestamp rules (sampling/timestamp_rules.h) on a small vocabulary: eos 3, specials
// 4..5, <|notimestamps|> 5, timestamps 6..11 (T = 6). Each rule checked alone where it can fail,
// through the Sampler (greedy) and the constraint's mask. The same rules against transformers.js'
// WhisperTimeStampLogitsProcessor on random logits: tests/sampling/hf_whisper_timestamps.cjs.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/error.h"
#include "sampling/sampler.h"
#include "sampling/timestamp_rules.h"
#include "sampling/token_allowlist.h"

namespace ogai::sampling {
namespace {

constexpr int kV = 12;

std::unique_ptr<ConstraintState> state_after(const std::vector<TokenId>& seq, std::optional<int> max_initial = {}) {
  static std::shared_ptr<TimestampRules> rules;
  rules = std::make_shared<TimestampRules>(TimestampRuleIds{3, 5, max_initial});
  auto s = rules->start();
  for (TokenId t : seq) s->accept(t);
  return s;
}

// Allowed ids after `seq` with flat logits (rule 5 then never forbids text: equal mass... see below).
std::vector<int> allowed_ids(ConstraintState& s, const std::vector<float>& logits) {
  AllowedTokens a = s.allowed_at(logits);
  std::vector<int> out;
  for (int i = 0; i < kV; ++i)
    if (a.allows(static_cast<std::size_t>(i))) out.push_back(i);
  return out;
}

// Text much likelier than timestamps, so rule 5 stays out of the way.
std::vector<float> text_heavy() {
  std::vector<float> l(kV, -20.0f);
  for (int i = 0; i < 6; ++i) l[static_cast<std::size_t>(i)] = 5.0f;
  return l;
}

TEST(TimestampRules, FirstTokenIsATimestampWithinTheInitialBound) {
  auto s = state_after({}, 2);
  EXPECT_EQ(allowed_ids(*s, text_heavy()), (std::vector<int>{6, 7, 8}));
  auto unbounded = state_after({});
  EXPECT_EQ(allowed_ids(*unbounded, text_heavy()), (std::vector<int>{6, 7, 8, 9, 10, 11}));
}

TEST(TimestampRules, NoTimestampsTokenIsNeverAllowed) {
  auto s = state_after({6, 1});
  const std::vector<int> ids = allowed_ids(*s, text_heavy());
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 5), 0);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 4), 1);
}

TEST(TimestampRules, TimestampsComeInPairs) {
  // Text then a timestamp: no text may follow (ids below eos), eos and a later timestamp may.
  auto closing = state_after({6, 1, 2, 8});
  EXPECT_EQ(allowed_ids(*closing, text_heavy()), (std::vector<int>{3, 4, 8, 9, 10, 11}));
  // Two timestamps in a row: only non-timestamps.
  auto pair = state_after({6, 1, 8, 8});
  EXPECT_EQ(allowed_ids(*pair, text_heavy()), (std::vector<int>{0, 1, 2, 3, 4}));
  // The first token alone counts as opening a pair.
  auto first = state_after({6});
  EXPECT_EQ(allowed_ids(*first, text_heavy()), (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(TimestampRules, TimestampsNeverDecrease) {
  // After text, a timestamp at least the last one + 1 (no repeat of the opening time).
  auto s = state_after({6, 1, 8, 8, 2});
  EXPECT_EQ(allowed_ids(*s, text_heavy()), (std::vector<int>{0, 1, 2, 3, 4, 9, 10, 11}));
}

TEST(TimestampRules, TimestampMassBeatingEveryTextTokenForbidsText) {
  auto s = state_after({6, 1});
  std::vector<float> l(kV, -20.0f);
  l[1] = 1.0f;  // best text token
  for (int i = 7; i < kV; ++i) l[static_cast<std::size_t>(i)] = 0.0f;  // each below it, five together above
  EXPECT_EQ(allowed_ids(*s, l), (std::vector<int>{7, 8, 9, 10, 11}));  // (6: monotonic)
  l[1] = 2.0f;  // log(5) = 1.609 < 2: text stays
  EXPECT_EQ(allowed_ids(*s, l), (std::vector<int>{0, 1, 2, 3, 4, 7, 8, 9, 10, 11}));
}

TEST(TimestampRules, GreedySamplerFollowsTheRules) {
  SamplingParams p;
  p.do_sample = false;
  p.constraint = std::make_shared<TimestampRules>(TimestampRuleIds{3, 5, 50});
  Sampler s(p, kV);
  std::vector<float> l = text_heavy();
  l[9] = -1.0f;
  EXPECT_EQ(s.next(l), 9);  // first: a timestamp, whatever the text's logits
  l = text_heavy();
  l[2] = 6.0f;
  EXPECT_EQ(s.next(l), 2);
  l = text_heavy();
  l[7] = 30.0f;  // an earlier time than the last: forbidden, though it would win by far
  l[10] = 29.0f;
  EXPECT_EQ(s.next(l), 10);
}

TEST(TimestampRules, BadIdsAreRefused) {
  EXPECT_THROW(TimestampRules(TimestampRuleIds{5, 5, {}}), Error);
  EXPECT_THROW(TimestampRules(TimestampRuleIds{-1, 5, {}}), Error);
  EXPECT_THROW(TimestampRules(TimestampRuleIds{3, 5, -1}), Error);
}

TEST(TokenAllowlist, GreedyPicksTheBestListedToken) {
  SamplingParams p;
  p.do_sample = false;
  p.constraint = std::make_shared<TokenAllowlist>(std::vector<TokenId>{7, 2, 7});
  Sampler s(p, kV);
  std::vector<float> l(kV, 0.0f);
  l[0] = 9;
  l[2] = 1;
  l[7] = 3;
  EXPECT_EQ(s.next(l), 7);
  EXPECT_THROW(TokenAllowlist({}), Error);
  EXPECT_THROW(TokenAllowlist({-2}), Error);
}

}  // namespace
}  // namespace ogai::sampling
