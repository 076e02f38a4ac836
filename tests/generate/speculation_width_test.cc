// choose_width and WidthCost (speculation_width.h): the shared verification run's width from the
// rows' proposals, acceptance and the measured cost of a position.
#include "generate/speculation_width.h"

#include <gtest/gtest.h>

#include <vector>

namespace ogai::generate {
namespace {

TEST(SpeculationWidth, WidensOnlyWhenTheExpectedTokensPayForIt) {
  // One row, 4 proposed, all accepted so far: 5 tokens for 1 + 4c.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 1.0, true}}, 0.15), 5);
  // Acceptance 0.1: the first proposal token brings 0.1 tokens for 0.15 of a step: plain.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 0.1, true}}, 0.15), 1);
  // Eight rows, one of them a good proposer: widening costs all eight rows, so it does not pay.
  std::vector<RowDraft> batch(8, RowDraft{0, 1.0, true});
  batch[3] = {4, 0.9, true};
  EXPECT_EQ(choose_width(batch, 0.15), 1);
  // ... on a machine where a position costs almost nothing it does.
  EXPECT_EQ(choose_width(batch, 0.01), 5);
  // Half-way acceptance at c = 0.15: 1.5 / 1.15, 1.75 / 1.3, 1.875 / 1.45: two tokens pay best.
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{4, 0.5, true}}, 0.15), 3);
}

TEST(SpeculationWidth, UntrimmableRowsSetTheFloor) {
  std::vector<RowDraft> batch = {{4, 0.0, true}, {2, 0.0, false}};
  EXPECT_EQ(choose_width(batch, 0.5), 3);  // the sampled row's 2 tokens are verified whatever they cost
  EXPECT_EQ(choose_width(std::vector<RowDraft>{{0, 1.0, true}, {0, 1.0, false}}, 0.0), 1);
}

TEST(SpeculationWidth, CostIsMeasuredAgainstPlainStepsOfTheSameRows) {
  WidthCost cost;
  EXPECT_DOUBLE_EQ(cost.per_position(), WidthCost::kPrior);
  cost.wide(4, 5, 2.0);  // no plain step of 4 rows seen yet: no evidence
  EXPECT_DOUBLE_EQ(cost.per_position(), WidthCost::kPrior);
  cost.plain(4, 1.0);
  for (int i = 0; i < 200; ++i) cost.wide(4, 5, 3.0);  // S = 5 costs 3 plain steps: c = (3 - 1) / 4
  EXPECT_NEAR(cost.per_position(), 0.5, 1e-6);
  cost.plain(2, 1.0);
  for (int i = 0; i < 200; ++i) cost.wide(2, 3, 1.0);  // as cheap as a plain step: c -> 0
  EXPECT_NEAR(cost.per_position(), 0.0, 1e-6);
}

}  // namespace
}  // namespace ogai::generate
