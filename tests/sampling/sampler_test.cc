// Sampler: reproducibility, greedy choice, and chi-square goodness of fit of the draws against
// the processed distribution computed by the dense reference (hf_reference.h).
#include "sampling/sampler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/sampling/chi_square.h"
#include "tests/sampling/test_util.h"

namespace ogai::sampling {
namespace {

using testing::chi_square;
using testing::chi_square_critical;
using testing::Fit;
using testing::random_logits;

std::vector<int64_t> run(const SamplingParams& params, const std::vector<float>& logits, int n) {
  Sampler sampler(params, static_cast<int64_t>(logits.size()));
  std::vector<TokenId> prompt = {1, 2, 3};
  sampler.reset(prompt);
  std::vector<int64_t> out;
  for (int i = 0; i < n; ++i) {
    std::vector<float> row = logits;
    out.push_back(sampler.next(row));
  }
  return out;
}

SamplingParams busy_params(uint64_t seed) {
  SamplingParams p;
  p.seed = seed;
  p.temperature = 0.9;
  p.top_k = 40;
  p.top_p = 0.95;
  p.repetition_penalty = 1.3;
  p.presence_penalty = 0.4;
  return p;
}

TEST(SamplerTest, SameSeedSameSequenceOtherSeedOtherSequence) {
  std::vector<float> logits = random_logits(500, 11, 1.0);
  std::vector<int64_t> a = run(busy_params(99), logits, 200);
  EXPECT_EQ(a, run(busy_params(99), logits, 200));
  EXPECT_NE(a, run(busy_params(100), logits, 200));
}

TEST(SamplerTest, ResetRestartsTheSeededStream) {
  std::vector<float> logits = random_logits(100, 12, 1.0);
  SamplingParams p;
  p.seed = 5;
  Sampler sampler(p, 100);
  std::vector<int64_t> first, second;
  for (auto* out : {&first, &second}) {
    sampler.reset({});
    for (int i = 0; i < 50; ++i) {
      std::vector<float> row = logits;
      out->push_back(sampler.next(row));
    }
  }
  EXPECT_EQ(first, second);
}

// Cross-platform pin: the first draws for one seed (an independent Python transcription of rng.h
// and of the inverse-CDF walk in id order gives the same ids). A change here means seeded outputs
// changed for users, which must be deliberate (docs/sampling.md documents generator and order).
TEST(SamplerTest, SeededDrawsArePinned) {
  SamplingParams p;
  p.seed = 42;
  std::vector<float> logits = {0.0f, 1.0f, 2.0f, 0.5f, -1.0f, 1.5f, 0.25f, -0.5f};
  EXPECT_EQ(run(p, logits, 12), (std::vector<int64_t>{1, 2, 5, 6, 7, 5, 5, 5, 5, 3, 5, 2}));
}

TEST(SamplerTest, GreedyPicksLowestIdAmongTies) {
  SamplingParams p;
  p.do_sample = false;
  Sampler sampler(p, 6);
  std::vector<float> row = {1.0f, 4.0f, -2.0f, 4.0f, 4.0f, 3.0f};
  EXPECT_EQ(sampler.sample(row), 1);
  EXPECT_EQ(argmax(std::vector<float>{-INFINITY, -INFINITY, -5.0f}), 2);
  p.do_sample = true;
  p.temperature = 0.0;  // OpenAI convention: temperature 0 is greedy
  Sampler zero(p, 6);
  row = {1.0f, 4.0f, -2.0f, 4.0f, 4.0f, 3.0f};
  EXPECT_EQ(zero.sample(row), 1);
}

TEST(SamplerTest, GreedyIgnoresWarpersButNotPenalties) {
  SamplingParams p;
  p.do_sample = false;
  p.top_k = 1;
  p.temperature = 5.0;
  p.repetition_penalty = 10.0;
  Sampler sampler(p, 3);
  std::vector<TokenId> prompt = {0};
  sampler.reset(prompt);
  std::vector<float> row = {3.0f, 1.0f, 0.0f};
  EXPECT_EQ(sampler.sample(row), 1);  // 3 / 10 = 0.3 < 1
}

std::vector<int64_t> histogram(const SamplingParams& params, const std::vector<float>& logits, int64_t n) {
  Sampler sampler(params, static_cast<int64_t>(logits.size()));
  std::vector<int64_t> counts(logits.size(), 0);
  std::vector<float> row(logits.size());
  for (int64_t i = 0; i < n; ++i) {
    row = logits;
    ++counts[sampler.sample(row)];
  }
  return counts;
}

struct Case {
  const char* name;
  SamplingParams params;
  std::vector<double> (*expected)(std::vector<float>);
};

std::vector<double> expect_temperature(std::vector<float> x) {
  reference::temperature(x, 0.7f);
  return reference::softmax(x);
}
std::vector<double> expect_top_k(std::vector<float> x) {
  reference::top_k(x, 8, 1);
  return reference::softmax(x);
}
std::vector<double> expect_top_p(std::vector<float> x) {
  reference::top_p(x, 0.7, 1);
  return reference::softmax(x);
}
std::vector<double> expect_min_p(std::vector<float> x) {
  reference::min_p(x, 0.1, 1);
  return reference::softmax(x);
}
std::vector<double> expect_typical_p(std::vector<float> x) {
  reference::typical_p(x, 0.6, 1);
  return reference::softmax(x);
}
std::vector<double> expect_chain(std::vector<float> x) {
  reference::temperature(x, 1.5f);
  reference::top_k(x, 20, 1);
  reference::top_p(x, 0.9, 1);
  reference::min_p(x, 0.05, 1);
  return reference::softmax(x);
}

std::vector<Case> cases() {
  auto with = [](auto change) {
    SamplingParams p;
    p.seed = 2024;
    change(p);
    return p;
  };
  return {
      {"temperature", with([](auto& p) { p.temperature = 0.7; }), expect_temperature},
      {"top_k", with([](auto& p) { p.top_k = 8; }), expect_top_k},
      {"top_p", with([](auto& p) { p.top_p = 0.7; }), expect_top_p},
      {"min_p", with([](auto& p) { p.min_p = 0.1; }), expect_min_p},
      {"typical_p", with([](auto& p) { p.typical_p = 0.6; }), expect_typical_p},
      {"chain", with([](auto& p) { p.temperature = 1.5, p.top_k = 20, p.top_p = 0.9, p.min_p = 0.05; }), expect_chain},
  };
}

// With a fixed seed each case is deterministic; a correct sampler passes a given case at level
// 0.001 for 999 seeds in 1000, and the seed here is one of those (it is not tuned per case:
// all cases share it). The control below shows the test has power: the same draws fail badly
// against the unfiltered softmax.
TEST(SamplerTest, DrawsFollowTheProcessedDistribution) {
  const std::vector<float> logits = random_logits(40, 77, 1.5);
  const int64_t n = 100000;
  for (const Case& c : cases()) {
    std::vector<double> expected = c.expected(logits);
    std::vector<int64_t> counts = histogram(c.params, logits, n);
    Fit fit = chi_square(counts, expected, n);
    EXPECT_EQ(fit.impossible, 0) << c.name << ": drew filtered-out tokens";
    ASSERT_GE(fit.df, 2) << c.name;
    EXPECT_LT(fit.statistic, chi_square_critical(fit.df))
        << c.name << ": chi-square " << fit.statistic << " with " << fit.df << " df";
  }
}

TEST(SamplerTest, ChiSquareDetectsAWrongDistribution) {
  const std::vector<float> logits = random_logits(40, 77, 1.5);
  const int64_t n = 100000;
  SamplingParams p;
  p.seed = 2024;
  p.temperature = 0.7;
  std::vector<int64_t> counts = histogram(p, logits, n);
  Fit fit = chi_square(counts, reference::softmax(logits), n);  // temperature left out
  EXPECT_GT(fit.statistic, 10 * chi_square_critical(fit.df));
}

}  // namespace
}  // namespace ogai::sampling
