// choose_width and WidthCost (speculation_width.h): the shared verification run's width from the
// rows' proposals, acceptance and the measured cost of each width.
#include "generate/speculation_width.h"

#include <gtest/gtest.h>

#include <vector>

#include "base/error.h"

namespace ogai::generate {
namespace {

// cost(S) = 1 + c (S - 1) for S = 1..widest.
std::vector<double> linear(double c, int widest = 9) {
  std::vector<double> cost;
  for (int s = 1; s <= widest; ++s) cost.push_back(1 + c * (s - 1));
  return cost;
}

TEST(SpeculationWidth, WidensOnlyWhenTheExpectedTokensPayForIt) {
  // One row, 4 proposed, all accepted so far: 5 tokens for 1 + 4c.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 1.0, true}}, linear(0.15)), 5);
  // Acceptance 0.1: the first proposal token brings 0.1 tokens for 0.15 of a step: plain.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 0.1, true}}, linear(0.15)), 1);
  // Eight rows, one of them a good proposer: widening costs all eight rows, so it does not pay.
  std::vector<RowDraft> batch(8, RowDraft{0, 1.0, true});
  batch[3] = {4, 0.9, true};
  EXPECT_EQ(choose_width(batch, linear(0.15)), 1);
  // ... on a machine where a position costs almost nothing it does.
  EXPECT_EQ(choose_width(batch, linear(0.01)), 5);
  // Half-way acceptance at c = 0.15: 1.5 / 1.15, 1.75 / 1.3, 1.875 / 1.45: two tokens pay best.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 0.5, true}}, linear(0.15)), 3);
}

TEST(SpeculationWidth, AFixedCostOfWideningDeclinesWeakProposals) {
  const std::vector<RowDraft> row = {{1, 0.4, true}};
  EXPECT_EQ(choose_width(row, linear(0.2)), 2);  // 1.4 tokens for 1.2 steps
  // The same position price plus a fixed 0.15 for any wide run: 1.4 / 1.35 < 1.1.
  EXPECT_EQ(choose_width(row, std::vector<double>{1.0, 1.35}), 1);
  // A long confident proposal still pays the fixed part: 1 + .9 + .81 + .73 + .66 = 4.1 for 1.5.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 0.9, true}}, std::vector<double>{1, 1.3, 1.37, 1.43, 1.5}), 5);
}

TEST(SpeculationWidth, AWideRunMustBeatThePlainStepByTheMargin) {
  // 1.3 tokens for 1.2 steps: 8% better than plain, under the margin.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{1, 0.3, true}}, linear(0.2)), 1);
  // 1.35 tokens for 1.2 steps: 12.5% better.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{1, 0.35, true}}, linear(0.2)), 2);
  // Eight rows, four proposing one sure token: 12 tokens for 1.4 steps (8.57 per step) is not 10%
  // above the plain step's 8.
  std::vector<RowDraft> batch(8, RowDraft{0, 1.0, true});
  for (int r = 0; r < 4; ++r) batch[static_cast<std::size_t>(r)] = {1, 1.0, true};
  EXPECT_EQ(choose_width(batch, linear(0.4)), 1);
  EXPECT_EQ(choose_width(batch, linear(0.3)), 2);  // 12 / 1.3 = 9.2
  // An untrimmable proposal is verified whatever the margin says.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{1, 0.3, false}}, linear(0.2)), 2);
}

TEST(SpeculationWidth, UntrimmableRowsSetTheFloor) {
  std::vector<RowDraft> batch = {{4, 0.0, true}, {2, 0.0, false}};
  EXPECT_EQ(choose_width(batch, linear(0.5)), 3);  // the sampled row's 2 tokens are verified whatever they cost
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{0, 1.0, true}, {0, 1.0, false}}, linear(0.0)), 1);
}

TEST(SpeculationWidth, CostsMustCoverTheLongestProposal) {
  EXPECT_THROW(choose_width(std::vector<RowDraft>{{4, 1.0, true}}, linear(0.1, 4)), Error);
}

TEST(SpeculationWidth, UnmeasuredWidthsUseThePrior) {
  WidthCost cost;
  const std::vector<double> one(cost.relative(1, 5).begin(), cost.relative(1, 5).end());
  ASSERT_EQ(one.size(), 5u);
  EXPECT_DOUBLE_EQ(one[0], 1.0);
  for (int s = 2; s <= 5; ++s)
    EXPECT_DOUBLE_EQ(one[static_cast<std::size_t>(s - 1)], 1 + WidthCost::kFixed + WidthCost::kPosition * (s - 1));
  // More rows: a larger fixed part (each row leaves its one-token path), capped at kMaxRatio.
  EXPECT_DOUBLE_EQ(cost.relative(8, 2)[1], 1 + WidthCost::kFixed + 7 * WidthCost::kFixedPerRow + WidthCost::kPosition);
  EXPECT_DOUBLE_EQ(cost.relative(200, 2)[1], WidthCost::kMaxRatio);
  cost.wide(4, 5, 2.0);  // no plain step of 4 rows seen yet: no evidence
  EXPECT_DOUBLE_EQ(cost.relative(4, 5)[4], WidthCost::prior(4, 5));
  // With one row and the prior, a proposal accepted half of the time pays for three positions:
  // 1.5 / 1.23, 1.75 / 1.31, 1.875 / 1.39 (best), 1.94 / 1.47.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 0.5, true}}, cost.relative(1, 5)), 4);
  // Eight rows, two of them proposing at 0.8: at most 8 + 2 x 2.36 tokens for 2.03 steps: plain.
  std::vector<RowDraft> batch(8, RowDraft{0, 1.0, true});
  batch[0] = batch[5] = {4, 0.8, true};
  EXPECT_EQ(choose_width(batch, cost.relative(8, 5)), 1);
}

TEST(SpeculationWidth, CostIsMeasuredPerRowCountAndWidthAgainstPlainSteps) {
  WidthCost cost;
  cost.plain(8, 1.0);
  for (int i = 0; i < 200; ++i) cost.wide(8, 2, 1.9);  // two wide cost 1.9 plain steps of 8 rows
  auto eight = cost.relative(8, 5);
  EXPECT_NEAR(eight[1], 1.9, 1e-6);
  // Widths 3..5 of 8 rows: not measured, extrapolated from the nearest measured one.
  EXPECT_NEAR(eight[2], 1.9 + WidthCost::kPosition, 1e-6);
  EXPECT_NEAR(eight[4], 1.9 + 3 * WidthCost::kPosition, 1e-6);
  cost.plain(1, 2.0);
  for (int i = 0; i < 200; ++i) cost.wide(1, 5, 2.8);  // one row: five wide costs 1.4 plain steps
  auto one = cost.relative(1, 5);
  EXPECT_NEAR(one[4], 1.4, 1e-6);
  EXPECT_NEAR(one[1], 1.4 - 3 * WidthCost::kPosition, 1e-6);
  EXPECT_NEAR(cost.relative(8, 2)[1], 1.9, 1e-6);  // row counts do not mix
}

TEST(SpeculationWidth, OneStalledStepCannotShutAWidthOut) {
  WidthCost cost;
  cost.plain(1, 1.0);
  cost.wide(1, 3, 1.3);
  cost.wide(1, 3, 50.0);  // pre-empted: counted as kMaxRatio
  EXPECT_NEAR(cost.relative(1, 3)[2], 1.3 + WidthCost::kWeight * (WidthCost::kMaxRatio - 1.3), 1e-9);
  cost.wide(1, 3, 0.5);  // faster than a plain step (noise): counted as 1
  EXPECT_LT(cost.relative(1, 3)[2], 1.6);
  EXPECT_GE(cost.relative(1, 3)[2], 1.0);
}

TEST(SpeculationWidth, TheYieldFactorScalesWhatProposalsAreExpectedToAdd) {
  const std::vector<RowDraft> row = {{4, 0.5, true}};
  EXPECT_DOUBLE_EQ(expected_extra_tokens(row, 1), 0.0);
  EXPECT_DOUBLE_EQ(expected_extra_tokens(row, 3), 0.5 + 0.25);
  EXPECT_DOUBLE_EQ(expected_extra_tokens(std::vector<RowDraft>{{4, 0.5, false}}, 3), 0.5 + 0.25 + 0.125 + 0.0625)
      << "an untrimmable proposal is verified whole";
  const auto cost = std::vector<double>{1.0, 1.5, 1.7, 1.9, 2.1};
  EXPECT_EQ(choose_width(row, cost), 1) << "1.5 / 1.5, 1.75 / 1.7 ... do not beat 1.1";
  EXPECT_EQ(choose_width(row, cost, 1.0), 1);
  EXPECT_EQ(choose_width(row, cost, 1.6), 3) << "proposals keeping 1.6x what their averages say pay: 2.2 / 1.7";
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 1.0, true}}, cost, 0.2), 1) << "and ones that keep a fifth do not";
}

TEST(YieldCalibration, TracksKeptOverExpectedPerRowCountWithinItsClamp) {
  YieldCalibration y;
  EXPECT_DOUBLE_EQ(y.factor(1), 1.0) << "nothing seen yet";
  y.observe(1, 2.0, 3.0);
  EXPECT_DOUBLE_EQ(y.factor(1), 1.5);
  EXPECT_DOUBLE_EQ(y.factor(8), 1.0) << "each row count on its own";
  for (int i = 0; i < 200; ++i) y.observe(8, 4.0, 2.0);
  EXPECT_NEAR(y.factor(8), 0.5, 1e-6);
  for (int i = 0; i < 200; ++i) y.observe(8, 4.0, 0.0);
  EXPECT_DOUBLE_EQ(y.factor(8), YieldCalibration::kMin);
  for (int i = 0; i < 200; ++i) y.observe(1, 1.0, 9.0);
  EXPECT_DOUBLE_EQ(y.factor(1), YieldCalibration::kMax);
  y.observe(2, 0.0, 1.0);  // nothing was expected: no ratio to learn
  EXPECT_DOUBLE_EQ(y.factor(2), 1.0);
}

}  // namespace
}  // namespace ogai::generate
