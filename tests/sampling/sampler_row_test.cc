// What the Sampler promises the log-probabilities about a row (sampler.h): leaves_row() holds when
// sample() does not write the row, and raw_softmax_sum() gives the raw row's softmax normalizer
// exactly when the chain computed it (temperature 1, no processors, no min-p zeroing).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "sampling/fast_exp.h"
#include "sampling/sampler.h"
#include "tests/sampling/test_util.h"

namespace ogai::sampling {
namespace {

struct Case {
  const char* name;
  SamplingParams params;
  bool leaves_row;
  bool raw_sum;
};

std::vector<Case> cases() {
  auto make = [](auto change) {
    SamplingParams p;
    p.seed = 3;
    change(p);
    return p;
  };
  return {
      {"T 1", make([](auto&) {}), true, true},
      {"greedy", make([](auto& p) { p.do_sample = false; }), true, false},
      {"T 0.8", make([](auto& p) { p.temperature = 0.8; }), true, false},
      {"min_p", make([](auto& p) { p.min_p = 0.05; }), true, false},
      {"top_p", make([](auto& p) { p.top_p = 0.9; }), true, true},
      {"top_p + min_p", make([](auto& p) { p.top_p = 0.9, p.min_p = 0.05; }), true, true},
      {"top_p T 0.7", make([](auto& p) { p.top_p = 0.9, p.temperature = 0.7; }), true, false},
      {"typical", make([](auto& p) { p.typical_p = 0.9; }), false, false},
      {"top_k", make([](auto& p) { p.top_k = 20; }), false, false},
      {"bias", make([](auto& p) { p.logit_bias = {{3, 2.0}}; }), false, false},
      {"repetition", make([](auto& p) { p.repetition_penalty = 1.2; }), false, false},
      {"presence", make([](auto& p) { p.presence_penalty = 0.5; }), false, false},
  };
}

TEST(SamplerRow, LeavesRowAndRawSumAsPromised) {
  for (std::size_t v : {100u, 4099u}) {
    std::vector<float> row = testing::random_logits(v, 11 + v, 3.0);
    row[7] = -INFINITY;
    for (const Case& c : cases()) {
      Sampler sampler(c.params, static_cast<std::int64_t>(v));
      sampler.reset(std::vector<TokenId>{1, 2, 3});
      EXPECT_EQ(sampler.leaves_row(), c.leaves_row) << c.name;
      EXPECT_FALSE(sampler.raw_softmax_sum()) << c.name << ": nothing sampled yet";
      for (int draw = 0; draw < 3; ++draw) {
        std::vector<float> given = row;
        const TokenId t = sampler.sample(given);
        sampler.accept(t);
        if (c.leaves_row) {
          EXPECT_EQ(std::memcmp(given.data(), row.data(), v * sizeof(float)), 0) << c.name << " wrote the row";
        }
        const auto sum = sampler.raw_softmax_sum();
        ASSERT_EQ(sum.has_value(), c.raw_sum) << c.name;
        if (!sum) continue;
        float max = -INFINITY;
        for (float x : row) max = std::max(max, x);
        double fast = 0.0, exact = 0.0;
        for (float x : row) {
          fast += exp_nonpositive_fast(x - max);
          exact += std::exp(static_cast<double>(x) - static_cast<double>(max));
        }
        EXPECT_EQ(sum->max, max) << c.name;
        EXPECT_NEAR(sum->total, fast, 1e-12 * fast) << c.name;
        EXPECT_NEAR(sum->total, exact, 2e-7 * exact) << c.name;
      }
      // distribution() builds the candidate list: no sum to hand over afterwards.
      std::vector<float> given = row;
      (void)sampler.distribution(given);
      EXPECT_FALSE(sampler.raw_softmax_sum()) << c.name;
    }
  }
}

}  // namespace
}  // namespace ogai::sampling
