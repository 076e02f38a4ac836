// exp_nonpositive_fast (fast_exp.h), the exponential of the dense weights and of the
// log-probabilities' sum: its documented accuracy (relative error below 2e-7 against std::exp),
// its monotonicity (the dense weights' order must be the logits' order: cut_test.h compares
// weights), its edge values, and, through the sampler, that the draws of every dense chain fit
// the exact (double, std::exp) distribution of HF's warpers (chi-square, alpha 0.001).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sampling/dense_weights.h"
#include "sampling/fast_exp.h"
#include "sampling/sampler.h"
#include "tests/sampling/chi_square.h"
#include "tests/sampling/test_util.h"

namespace ogai::sampling {
namespace {

constexpr double kBound = 2.0e-7;  // fast_exp.h's documented relative error

double relative_error(float x) {
  const double exact = std::exp(static_cast<double>(x));
  return std::fabs(static_cast<double>(exp_nonpositive_fast(x)) - exact) / exact;
}

TEST(FastExp, WithinItsBoundOnAGrid) {
  const int n = 1 << 22;
  double worst = 0.0;
  float at = 0.0f;
  for (int k = 0; k <= n; ++k) {
    const auto x = static_cast<float>(-87.3 * static_cast<double>(k) / n);
    const double e = relative_error(x);
    if (e > worst) worst = e, at = x;
  }
  EXPECT_LT(worst, kBound) << "at x = " << at;
  // The old exponential is within its own (tighter) bound on the same grid: the grid can see errors.
  double old_worst = 0.0;
  for (int k = 0; k <= n; k += 16) {
    const auto x = static_cast<float>(-87.3 * static_cast<double>(k) / n);
    const double exact = std::exp(static_cast<double>(x));
    old_worst = std::max(old_worst, std::fabs(static_cast<double>(exp_nonpositive(x)) - exact) / exact);
  }
  EXPECT_LT(old_worst, 1.0e-7);
}

// Every float in windows around the places where rounding could break the order: where the
// reduction's n changes (x = (k + 1/2) ln 2) and where x changes binade (x = -2^j).
TEST(FastExp, MonotoneAndWithinItsBoundAroundTheBreakpoints) {
  std::vector<float> centres;
  for (int k = 0; k < 126; ++k) centres.push_back(static_cast<float>(-(k + 0.5) * std::log(2.0)));
  for (int j = -20; j <= 6; ++j) centres.push_back(-std::ldexp(1.0f, j));
  for (float c : centres) {
    if (c < -87.29f) continue;
    float x = c;
    for (int i = 0; i < 20000; ++i) x = std::nextafter(x, -INFINITY);
    float previous = exp_nonpositive_fast(x);
    for (int i = 0; i < 40000 && x < 0.0f; ++i) {
      x = std::nextafter(x, INFINITY);
      const float e = exp_nonpositive_fast(x);
      ASSERT_GE(e, previous) << "not monotone at x = " << x << " (window around " << c << ")";
      ASSERT_LT(relative_error(x), kBound) << "x = " << x;
      previous = e;
    }
  }
}

TEST(FastExp, EdgeValues) {
  EXPECT_EQ(exp_nonpositive_fast(0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive_fast(-0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive_fast(-INFINITY), 0.0f);
  EXPECT_EQ(exp_nonpositive_fast(-87.31f), 0.0f);
  EXPECT_EQ(exp_nonpositive_fast(-1000.0f), 0.0f);
  EXPECT_GT(exp_nonpositive_fast(-87.29f), 0.0f);
  EXPECT_TRUE(std::isnormal(exp_nonpositive_fast(-87.29f)));
}

// The dense pass's weights are the fast exponential of y - max (vectorized clones included).
TEST(FastExp, DenseWeightsAreTheExponentialWithinItsBound) {
  for (float t : {1.0f, 0.7f}) {
    std::vector<float> row = testing::random_logits(3001, 17, 6.0);
    row[5] = -INFINITY;
    std::vector<float> y = row;
    DenseWeights dense;
    dense.reserve(row.size());
    dense.compute(y, t, 0.0, nullptr, true);
    const float max = dense.max_logit();
    for (std::size_t i = 0; i < row.size(); ++i) {
      const float d = y[i] - max;
      const float w = dense.weights()[i];
      if (d < -87.3f) {
        EXPECT_EQ(w, 0.0f) << i;
        continue;
      }
      const double exact = std::exp(static_cast<double>(d));
      EXPECT_LT(std::fabs(w - exact) / exact, kBound) << "id " << i << " T " << t;
    }
  }
}

// The draws of the chains that use the dense weights fit the exact softmax of HF's warpers,
// computed in double with std::exp (hf_reference.h).
TEST(FastExp, DenseChainDrawsFitTheExactDistribution) {
  const std::size_t v = 1500;
  std::vector<float> row = testing::random_logits(v, 4321, 1.5);
  Rng bumps(9);
  for (int i = 0; i < 6; ++i) row[bumps.next() % v] += 7.0f + static_cast<float>(i);
  struct Case {
    const char* name;
    SamplingParams params;
    std::vector<float> masked;  // the reference's processed row
  };
  std::vector<Case> cases;
  auto add = [&](const char* name, auto set, auto warp) {
    Case c{name, {}, row};
    set(c.params);
    warp(c.masked);
    cases.push_back(std::move(c));
  };
  add("T 1", [](SamplingParams&) {}, [](std::vector<float>&) {});
  add("T 0.7", [](SamplingParams& p) { p.temperature = 0.7; }, [](std::vector<float>& x) { reference::temperature(x, 0.7f); });
  add("min_p 0.02", [](SamplingParams& p) { p.min_p = 0.02; }, [](std::vector<float>& x) { reference::min_p(x, 0.02, 1); });
  add("top_p 0.9", [](SamplingParams& p) { p.top_p = 0.9; }, [](std::vector<float>& x) { reference::top_p(x, 0.9, 1); });
  add("typical_p 0.9", [](SamplingParams& p) { p.typical_p = 0.9; },
      [](std::vector<float>& x) { reference::typical_p(x, 0.9, 1); });
  for (const Case& c : cases) {
    const std::vector<double> probs = testing::reference_probs(c.masked);
    std::vector<std::int64_t> counts(v, 0);
    const int seeds = 8, per_seed = 1000;
    for (int s = 0; s < seeds; ++s) {
      SamplingParams p = c.params;
      p.seed = 77 + static_cast<std::uint64_t>(s);
      Sampler sampler(p, static_cast<std::int64_t>(v));
      for (int i = 0; i < per_seed; ++i) {
        std::vector<float> r = row;
        ++counts[static_cast<std::size_t>(sampler.sample(r))];
      }
    }
    const auto fit = testing::chi_square(counts, probs, seeds * per_seed);
    EXPECT_EQ(fit.impossible, 0) << c.name;
    ASSERT_GE(fit.df, 1) << c.name;
    EXPECT_LT(fit.statistic, testing::chi_square_critical(fit.df)) << c.name;
  }
}

}  // namespace
}  // namespace ogai::sampling
