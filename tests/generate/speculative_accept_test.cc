// The speculative-sampling acceptance rule for a one-hot draft: whatever the draft, the emitted
// token follows the target distribution p (chi-square at level 0.001), the draft is accepted
// with probability p(x), and the edge cases p(x) = 0 and p(x) = 1 behave.
#include "generate/speculative_accept.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "sampling/sampler.h"
#include "tests/sampling/chi_square.h"
#include "tests/sampling/test_util.h"

namespace ogai::generate {
namespace {

using sampling::Candidate;
using sampling::testing::chi_square;
using sampling::testing::chi_square_critical;
using sampling::testing::Fit;

std::vector<Candidate> target(const std::vector<std::pair<std::int32_t, float>>& p) {
  std::vector<Candidate> out;
  for (auto [id, prob] : p) out.push_back(Candidate{0.0f, prob, 0.0f, id});
  return out;
}

struct Trials {
  std::vector<std::int64_t> counts;
  std::int64_t accepted = 0;
};

Trials run(std::span<const Candidate> p, std::int32_t draft, std::size_t vocab, std::int64_t n, std::uint64_t seed) {
  Trials t{std::vector<std::int64_t>(vocab, 0), 0};
  sampling::Rng rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    AcceptOutcome o = accept_or_resample(p, draft, rng);
    ++t.counts[static_cast<std::size_t>(o.token)];
    if (o.accepted) {
      EXPECT_EQ(o.token, draft);
      ++t.accepted;
    } else {
      EXPECT_NE(o.token, draft);
    }
  }
  return t;
}

// p(x) must show up as the acceptance rate: binomial with n trials, 5 standard deviations.
void expect_acceptance_rate(const Trials& t, double px, std::int64_t n) {
  const double sd = std::sqrt(n * px * (1 - px));
  EXPECT_NEAR(static_cast<double>(t.accepted), n * px, 5 * sd + 1e-9);
}

TEST(SpeculativeAcceptTest, EmittedTokensFollowTheTargetForEveryDraft) {
  const std::int64_t n = 20000;
  const auto p = target({{0, 0.5f}, {1, 0.3f}, {2, 0.15f}, {4, 0.05f}});  // id 3 filtered (p = 0)
  const std::vector<double> dense = {0.5, 0.3, 0.15, 0.0, 0.05};
  for (std::int32_t draft : {0, 1, 2, 3, 4}) {
    Trials t = run(p, draft, dense.size(), n, 100 + static_cast<std::uint64_t>(draft));
    Fit fit = chi_square(t.counts, dense, n);
    EXPECT_EQ(fit.impossible, 0) << "draft " << draft;
    EXPECT_LT(fit.statistic, chi_square_critical(fit.df)) << "draft " << draft << ": " << fit.statistic;
    expect_acceptance_rate(t, dense[static_cast<std::size_t>(draft)], n);
  }
}

TEST(SpeculativeAcceptTest, CertainAndImpossibleDrafts) {
  sampling::Rng rng(3);
  const auto certain = target({{2, 1.0f}});
  const auto with_zeros = target({{0, 0.0f}, {2, 1.0f}, {5, 0.0f}});
  for (int i = 0; i < 1000; ++i) {
    AcceptOutcome a = accept_or_resample(certain, 2, rng);
    EXPECT_TRUE(a.accepted && a.token == 2);
    AcceptOutcome b = accept_or_resample(with_zeros, 2, rng);
    EXPECT_TRUE(b.accepted && b.token == 2);
    AcceptOutcome c = accept_or_resample(with_zeros, 5, rng);  // p(x) = 0: never kept
    EXPECT_TRUE(!c.accepted && c.token == 2);
    AcceptOutcome d = accept_or_resample(certain, 7, rng);  // x filtered out of the list
    EXPECT_TRUE(!d.accepted && d.token == 2);
  }
  EXPECT_THROW(accept_or_resample(target({{1, 0.0f}}), 1, rng), Error);
}

// The rule over the Sampler's own processed distribution (temperature, top-k, top-p, min-p):
// the emitted tokens follow it; the control shows a 10% bias toward the draft would be caught.
TEST(SpeculativeAcceptTest, FollowsTheSamplersProcessedDistribution) {
  const std::vector<float> logits = sampling::testing::random_logits(40, 77, 1.5);
  sampling::SamplingParams params;
  params.temperature = 1.3, params.top_k = 20, params.top_p = 0.9, params.min_p = 0.02;
  sampling::Sampler sampler(params, 40);
  std::vector<float> row = logits;
  const std::span<const Candidate> processed = sampler.distribution(row);
  const std::vector<Candidate> p(processed.begin(), processed.end());
  ASSERT_GT(p.size(), 3u);
  const std::vector<double> dense = sampling::testing::dense(p, 40);
  const std::int32_t draft = p.back().id;  // some surviving token
  const std::int64_t n = 20000;
  Trials t = run(p, draft, 40, n, 9);
  Fit fit = chi_square(t.counts, dense, n);
  EXPECT_EQ(fit.impossible, 0);
  EXPECT_LT(fit.statistic, chi_square_critical(fit.df)) << fit.statistic;
  std::vector<double> biased = dense;
  for (double& v : biased) v *= 0.9;
  biased[static_cast<std::size_t>(draft)] += 0.1;
  EXPECT_GT(chi_square(t.counts, biased, n).statistic, 10 * chi_square_critical(fit.df));
}

}  // namespace
}  // namespace ogai::generate
