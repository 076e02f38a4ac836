// SpeculationGate: the rule that stops a speculative sequence drafting while its proposals do not
// pay (speculation_gate.h), step by step.
#include "generate/speculation_gate.h"

#include <gtest/gtest.h>

namespace ogai::generate {
namespace {

// Steps until the gate closes when every proposal of `proposed` tokens keeps `accepted`.
int steps_until_closed(SpeculationGate& gate, int proposed, int accepted, int most = 1000) {
  for (int step = 1; step <= most; ++step) {
    EXPECT_TRUE(gate.drafting()) << "step " << step;
    gate.record(proposed, accepted);
    if (gate.paused()) return step;
  }
  return -1;
}

TEST(SpeculationGate, RejectedProposalsPauseDraftingThenRetry) {
  SpeculationGate gate;
  EXPECT_DOUBLE_EQ(gate.acceptance(), SpeculationGate::kResumeAt);  // a new row is not a perfect proposer
  // 0.5 -> 0.375 -> 0.28 -> 0.21 -> 0.16 < 0.2: closed after 4 rejected proposals.
  EXPECT_EQ(steps_until_closed(gate, 4, 0), 4);
  for (int i = 0; i < SpeculationGate::kPauseSteps; ++i) EXPECT_FALSE(gate.drafting()) << "paused step " << i;
  EXPECT_FALSE(gate.paused());
  EXPECT_DOUBLE_EQ(gate.acceptance(), SpeculationGate::kResumeAt);
  // From 0.5: 0.375 -> 0.28 -> 0.21 -> 0.16: closed again after 4.
  EXPECT_EQ(steps_until_closed(gate, 4, 0), 4);
}

TEST(SpeculationGate, PayingProposalsNeverPause) {
  SpeculationGate gate;
  EXPECT_EQ(steps_until_closed(gate, 4, 1), -1);  // a quarter accepted stays above 0.2
  EXPECT_NEAR(gate.acceptance(), 0.25, 1e-9);
  SpeculationGate accepting;
  accepting.record(4, 4);  // all accepted: the average rises from where it started
  EXPECT_NEAR(accepting.acceptance(), SpeculationGate::kResumeAt + SpeculationGate::kWeight * 0.5, 1e-12);
  SpeculationGate steps_without_proposal;
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(steps_without_proposal.drafting());
    steps_without_proposal.record(0, 0);  // nothing proposed: no evidence either way
  }
  EXPECT_DOUBLE_EQ(steps_without_proposal.acceptance(), SpeculationGate::kResumeAt);
}

}  // namespace
}  // namespace ogai::generate
