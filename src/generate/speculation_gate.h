// SpeculationGate: when a speculative sequence stops drafting because its proposals do not pay.
// Each verification that checked k >= 1 proposed tokens moves an acceptance average towards
// accepted / k (exponential, weight kWeight); when the average falls below kThreshold the
// sequence drafts nothing for the next kPauseSteps steps (it decodes as a plain row: one real token
// in the shared run, no proposal widening it), then drafts again from an average of kResumeAt, so a
// drafter that keeps missing is tried again every kPauseSteps steps at the cost of a few steps.
// A new sequence starts from kResumeAt too: the average is also the width rule's expected
// acceptance (speculation_width.h), and untried rows counted as perfect proposers made a batch of
// fresh requests widen runs that did not pay (stories260k, 8 requests: 8 such runs per 200 tokens).
// Why these values: a proposal that is rejected costs its positions in the verification run (the
// run is as wide as the widest row) and the KV roll-back; at the n-gram drafter's typical
// acceptance on stories260k (about 0.6) the gate never closes, while a row whose proposals all miss
// stops widening the run after 4 steps (bench/speculative_bench; docs/speculative.md).
// Deterministic (a function of the accepted counts), so a request drafts the same proposals alone
// and in a batch. Not thread-safe: one per sequence.
#pragma once

namespace ogai::generate {

class SpeculationGate {
 public:
  static constexpr double kWeight = 0.25;
  static constexpr double kThreshold = 0.2;
  static constexpr int kPauseSteps = 16;
  static constexpr double kResumeAt = 0.5;

  // Whether this step may draft; a paused step counts towards the pause.
  bool drafting() {
    if (paused_ == 0) return true;
    if (--paused_ == 0) average_ = kResumeAt;
    return false;
  }
  // A verification of `proposed` tokens of which `accepted` were kept (none proposed: no change).
  void record(int proposed, int accepted) {
    if (proposed <= 0) return;
    average_ += kWeight * (static_cast<double>(accepted) / proposed - average_);
    if (average_ < kThreshold) paused_ = kPauseSteps;
  }
  double acceptance() const { return average_; }
  bool paused() const { return paused_ > 0; }

 private:
  double average_ = kResumeAt;
  int paused_ = 0;
};

}  // namespace ogai::generate
