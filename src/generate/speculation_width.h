// How wide the engine's shared verification run is (engine.h). Each step every speculative row of
// the batch has proposed k_r tokens; a run S wide verifies at most S - 1 of them per row and costs
// cost(S) = 1 + c (S - 1) plain steps of the same rows, c measured by WidthCost from ONNX Runtime's
// run times. A row that keeps j proposed tokens is expected to emit 1 + a + a^2 + ... + a^j tokens
// (a: its acceptance average, speculation_gate.h). choose_width() returns the S that maximises
// expected tokens per cost: 1 (a plain step) when no proposal pays for the widening, which on a CPU
// where a run's cost grows with rows x S is most steps of a large batch with a weak drafter.
// Rows whose proposals may not be trimmed (sampled rows: their seeded sample path depends on what
// is verified) set a floor. Pure functions and a small accumulator; no allocation after warm-up.
// Not thread-safe: the engine's thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ogai::generate {

struct RowDraft {
  std::int64_t proposed = 0;  // proposal tokens (0: a plain row, or nothing found)
  double acceptance = 1.0;    // expected fraction of proposal tokens accepted
  bool trimmable = true;      // the engine may verify fewer of them (greedy rows)
};

// The run width in [1 + the longest untrimmable proposal, 1 + the longest proposal].
std::int64_t choose_width(std::span<const RowDraft> rows, double per_position_cost);

// The measured relative cost c of one more position per row: each wide step's run time against the
// plain steps' (exponential averages per row count). Starts from kPrior until both were seen.
class WidthCost {
 public:
  static constexpr double kPrior = 0.15;  // stories260k on a loaded 2-core CPU: S = 5 cost 1.6 plain steps
  static constexpr double kWeight = 0.1;
  void plain(std::int64_t rows, double seconds);
  void wide(std::int64_t rows, std::int64_t seq, double seconds);
  double per_position() const { return c_; }

 private:
  std::vector<double> plain_;  // [rows]: average seconds of a plain step, 0 = none seen
  double c_ = kPrior;
};

}  // namespace ogai::generate
