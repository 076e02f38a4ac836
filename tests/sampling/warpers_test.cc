// Each warper against the dense reference (hf_reference.h) and on HF's edge cases.
#include "sampling/warpers.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "sampling/sampler.h"
#include "tests/sampling/test_util.h"

namespace ogai::sampling {
namespace {

using testing::dense;
using testing::random_logits;
using testing::reference_probs;

std::vector<double> ours(const SamplingParams& params, std::vector<float> logits) {
  Sampler sampler(params, static_cast<int64_t>(logits.size()));
  return dense(sampler.distribution(logits), logits.size());
}

void expect_same_distribution(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i] == 0.0, want[i] == 0.0) << "token " << i << " kept by one side only";
    EXPECT_NEAR(got[i], want[i], 1e-6) << "token " << i;
  }
}

size_t kept(const std::vector<double>& p) {
  size_t n = 0;
  for (double v : p) n += v > 0;
  return n;
}

TEST(WarpersTest, EachWarperMatchesTheReferenceOnRandomLogits) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const size_t vocab = seed % 2 ? 300 : 4000;
    std::vector<float> logits = random_logits(vocab, seed);
    SamplingParams p;
    p.temperature = 0.8;
    std::vector<float> x = logits;
    reference::temperature(x, 0.8f);
    expect_same_distribution(ours(p, logits), reference_probs(x));

    p = {};
    p.top_k = 17;
    x = logits;
    reference::top_k(x, 17, 1);
    expect_same_distribution(ours(p, logits), reference_probs(x));

    p = {};
    p.top_p = 0.05 * static_cast<double>(seed % 19 + 1);
    x = logits;
    reference::top_p(x, p.top_p, 1);
    expect_same_distribution(ours(p, logits), reference_probs(x));

    p = {};
    p.min_p = 0.02 * static_cast<double>(seed);
    x = logits;
    reference::min_p(x, p.min_p, 1);
    expect_same_distribution(ours(p, logits), reference_probs(x));

    p = {};
    p.typical_p = 0.045 * static_cast<double>(seed + 1);
    x = logits;
    reference::typical_p(x, p.typical_p, 1);
    expect_same_distribution(ours(p, logits), reference_probs(x));
  }
}

TEST(WarpersTest, FullChainMatchesTheReferenceInHfOrder) {
  for (uint64_t seed = 30; seed < 40; ++seed) {
    std::vector<float> logits = random_logits(5000, seed);
    SamplingParams p;
    p.temperature = 1.3;
    p.top_k = 200;
    p.top_p = 0.8;
    p.min_p = 0.05;
    p.typical_p = 0.9;
    std::vector<float> x = logits;
    reference::temperature(x, 1.3f);
    reference::top_k(x, 200, 1);
    reference::top_p(x, 0.8, 1);
    reference::min_p(x, 0.05, 1);
    reference::typical_p(x, 0.9, 1);
    expect_same_distribution(ours(p, logits), reference_probs(x));
  }
}

TEST(WarpersTest, TopKKeepsTiesWithTheKthAndAllWhenKReachesV) {
  SamplingParams p;
  p.top_k = 2;
  // HF removes only scores < the k-th largest: the 3 tied at the 2nd place all stay.
  EXPECT_EQ(kept(ours(p, {1.0f, 3.0f, 2.0f, 2.0f, 2.0f, 0.0f})), 4u);
  p.top_k = 6;
  EXPECT_EQ(kept(ours(p, {1.0f, 3.0f, 2.0f, 2.0f, 2.0f, 0.0f})), 6u);
  p.top_k = 1000;
  EXPECT_EQ(kept(ours(p, {1.0f, 3.0f, 2.0f})), 3u);
  p.top_k = 1;
  std::vector<double> one = ours(p, {1.0f, 3.0f, 2.0f});
  EXPECT_EQ(one, (std::vector<double>{0.0, 1.0, 0.0}));
}

TEST(WarpersTest, TopPOfOneKeepsEverythingAndTinyTopPKeepsMinKeep) {
  std::vector<float> logits = random_logits(100, 5);
  SamplingParams p;
  p.top_p = 1.0;
  EXPECT_EQ(kept(ours(p, logits)), 100u);
  p.top_p = 1e-9;
  EXPECT_EQ(kept(ours(p, logits)), 1u);
  p.min_tokens_to_keep = 3;
  EXPECT_EQ(kept(ours(p, logits)), 3u);
  std::vector<float> x = logits;
  reference::top_p(x, 1e-9, 3);
  expect_same_distribution(ours(p, logits), reference_probs(x));
  // One dominant token: its mass alone reaches top_p, but min_keep still needs two more.
  std::vector<float> peaked(50, 0.0f);
  peaked[7] = 12.0f;
  peaked[9] = 0.5f;
  x = peaked;
  reference::top_p(x, 1e-9, 3);
  expect_same_distribution(ours(p, peaked), reference_probs(x));
  EXPECT_EQ(kept(ours(p, peaked)), 3u);
}

// Without top-k, top-p gathers a superset of the nucleus from dense weights at thresholds
// max - 2, - 4, ..., - 64, or everything. The flat case exits at max - 2, the ramp and the wide
// case at lower thresholds, and top_p 0.9999999 asks for more than the total mass after the
// rounding margin (1 + 1e-6), so it takes the gather-everything exit.
TEST(WarpersTest, TopPWithoutTopKMatchesTheReferenceAtEveryThreshold) {
  std::vector<float> ramp(3000);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = -0.04f * static_cast<float>((i * 7) % 3000);
  for (const auto& logits : {ramp, random_logits(3000, 8, 20.0), random_logits(3000, 9, 0.2)}) {
    for (double top_p : {0.05, 0.5, 0.9, 0.999, 0.9999999}) {
      SamplingParams p;
      p.top_p = top_p;
      std::vector<float> x = logits;
      reference::top_p(x, top_p, 1);
      expect_same_distribution(ours(p, logits), reference_probs(x));
    }
  }
}

TEST(WarpersTest, TopPBoundaryIsInclusiveLikeHf) {
  // probs 0.5, 0.25, 0.25 (logits log 2, 0, 0). top_p 0.5: HF removes ascending cumulative <= 0.5,
  // i.e. both 0.25s, keeping only the 0.5. top_p 0.75 keeps 0.5 and one 0.25 (the lower id).
  std::vector<float> logits = {0.0f, std::log(2.0f), 0.0f};
  SamplingParams p;
  p.top_p = 0.5;
  EXPECT_EQ(kept(ours(p, logits)), 1u);
  p.top_p = 0.75;
  std::vector<double> got = ours(p, logits);
  EXPECT_NEAR(got[0], 1.0 / 3.0, 1e-6);
  EXPECT_NEAR(got[1], 2.0 / 3.0, 1e-6);
  EXPECT_EQ(got[2], 0.0);
}

TEST(WarpersTest, MinPKeepsTheTopAndItsTiesAtOne) {
  SamplingParams p;
  p.min_p = 1.0;
  EXPECT_EQ(ours(p, {1.0f, 5.0f, 5.0f, 4.9f}), (std::vector<double>{0.0, 0.5, 0.5, 0.0}));
  p.min_p = 0.5;
  p.min_tokens_to_keep = 3;
  std::vector<float> logits = {0.0f, 5.0f, -3.0f, 1.0f, 4.0f};
  std::vector<float> x = logits;
  reference::min_p(x, 0.5, 3);
  expect_same_distribution(ours(p, logits), reference_probs(x));
  EXPECT_EQ(kept(ours(p, logits)), 3u);
}

TEST(WarpersTest, MinPOnTheDenseDrawPathKeepsTiesAtTheTop) {
  SamplingParams p;
  p.min_p = 1.0;  // no rank filter: sample() draws from dense weights
  p.seed = 4;
  Sampler sampler(p, 4);
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 400; ++i) {
    std::vector<float> row = {1.0f, 5.0f, 5.0f, 4.9f};
    ++counts[sampler.sample(row)];
  }
  EXPECT_EQ(counts[0] + counts[3], 0);
  EXPECT_GT(counts[1], 150);
  EXPECT_GT(counts[2], 150);
}

TEST(WarpersTest, TypicalPWithTinyMassKeepsTheMostTypicalToken) {
  std::vector<float> logits = random_logits(64, 9);
  SamplingParams p;
  p.typical_p = 1e-6;
  std::vector<float> x = logits;
  reference::typical_p(x, 1e-6, 1);
  std::vector<double> got = ours(p, logits);
  EXPECT_EQ(kept(got), 1u);
  expect_same_distribution(got, reference_probs(x));
}

TEST(WarpersTest, AllMinusInfinityButOneAlwaysPicksThatOne) {
  std::vector<float> logits(50, -INFINITY);
  logits[31] = -7.0f;
  for (int mode = 0; mode < 4; ++mode) {
    SamplingParams p;
    p.seed = 3;
    if (mode == 0) p.do_sample = false;
    if (mode == 1) p.top_k = 5, p.top_p = 0.3;
    if (mode == 2) p.min_p = 0.9, p.typical_p = 0.5, p.temperature = 0.3;
    Sampler sampler(p, 50);
    for (int i = 0; i < 20; ++i) {
      std::vector<float> row = logits;
      EXPECT_EQ(sampler.sample(row), 31) << "mode " << mode;
    }
  }
}

TEST(WarpersTest, NothingLeftNaNAndInfinityAreErrors) {
  SamplingParams p;
  std::vector<float> none(8, -INFINITY);
  Sampler sampler(p, 8);
  EXPECT_THROW(sampler.sample(none), Error);
  p.do_sample = false;
  Sampler greedy(p, 8);
  none.assign(8, -INFINITY);
  EXPECT_THROW(greedy.sample(none), Error);
  std::vector<float> nan(8, 0.0f);
  nan[5] = NAN;
  try {
    greedy.sample(nan);
    FAIL() << "NaN accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("token 5"), std::string::npos) << e.message();
  }
  std::vector<float> inf(8, 0.0f);
  inf[2] = INFINITY;
  EXPECT_THROW(sampler.sample(inf), Error);
  p.do_sample = true;
  p.top_k = 2;
  Sampler top_k(p, 8);
  std::vector<float> nan_late(8, 0.0f);
  nan_late[6] = NAN;
  EXPECT_THROW(top_k.sample(nan_late), Error);
}

TEST(WarpersTest, WrongLogitsSizeOrBiasIdIsAnError) {
  SamplingParams p;
  Sampler sampler(p, 8);
  std::vector<float> seven(7, 0.0f);
  EXPECT_THROW(sampler.sample(seven), Error);
  p.logit_bias[8] = 1.0;
  EXPECT_THROW(Sampler(p, 8), Error);
}

}  // namespace
}  // namespace ogai::sampling
