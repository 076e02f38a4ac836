// How wide the engine's shared verification run is (engine.h). Each step every speculative row of
// the batch has proposed k_r tokens; a run S wide verifies at most S - 1 of them per row and costs
// cost(S) plain steps of the same rows. A row that keeps j proposed tokens is expected to emit
// 1 + a + a^2 + ... + a^j tokens (a: its acceptance average, speculation_gate.h). choose_width()
// returns the S that maximises expected tokens per cost: 1 (a plain step) when no proposal pays
// for the widening, which on a CPU where a wide run of many rows costs nearly twice a plain one is
// most steps of a large batch.
// cost(S) is measured (WidthCost): the engine thread's CPU time of each step's run plus its roll-back
// (kv::BatchCache::keep_prefixes), per row count and width, against the plain steps of the same
// row count. A width not measured yet for that row count is estimated from the nearest measured
// width of that row count (kPosition per position between them), else from the prior
// 1 + kFixed + kFixedPerRow (rows - 1) + kPosition (S - 1): a wide run has a fixed cost beyond its
// positions, larger the more rows leave their one-token paths (stories260k, 2-core CPU: one row at
// S = 2 costs 1.25 plain steps, at S = 5 1.47; eight rows 1.9 and 2.8).
// A wide run is chosen only when its expected tokens per cost beat the plain step's by
// kWidenMargin: the acceptance averages are optimistic for the rows that just proposed (eight rows
// of stories260k: the wide runs the rule chose emitted 11% fewer tokens than it expected), and a
// wide run that merely breaks even also spreads the rows' lengths (more left padding).
// Rows whose proposals may not be trimmed (sampled rows: their seeded sample path depends on what
// is verified) set a floor. Pure function and a small accumulator; no allocation after warm-up.
// Not thread-safe: the engine's thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ogai::generate {

inline constexpr double kWidenMargin = 1.1;

struct RowDraft {
  std::int64_t proposed = 0;  // proposal tokens (0: a plain row, or nothing found)
  double acceptance = 1.0;    // expected fraction of proposal tokens accepted
  bool trimmable = true;      // the engine may verify fewer of them (greedy rows)
};

// The run width in [1 + the longest untrimmable proposal, 1 + the longest proposal]. `cost[S - 1]`
// is the relative cost of a run S wide (cost[0] = 1, a plain step); it must cover the longest
// proposal + 1 (ogai::Error kInternal otherwise). `yield` scales the proposed tokens each row is
// expected to add (YieldCalibration below; 1 = the acceptance averages taken as they are).
std::int64_t choose_width(std::span<const RowDraft> rows, std::span<const double> cost, double yield = 1.0);

// The tokens a run `width` wide is expected to add beyond one per row: sum over rows of
// a + a^2 + ... + a^j, j = the proposal tokens it verifies at that width.
double expected_extra_tokens(std::span<const RowDraft> rows, std::int64_t width);

// How far the acceptance averages' expectations come true, per row count: the proposed tokens the
// wide runs actually kept over what choose_width expected of them (exponential averages of both,
// so one lucky or unlucky run moves it little). At one row of stories260k the averages undershoot
// (a row that just proposed well keeps doing so), at eight they overshoot; the factor corrects
// both. 1 until a wide run of that row count has been seen; clamped to [kMin, kMax].
class YieldCalibration {
 public:
  static constexpr double kWeight = 0.1;
  static constexpr double kMin = 0.5;
  static constexpr double kMax = 2.0;
  void observe(std::int64_t rows, double expected_extra, double kept_extra);
  double factor(std::int64_t rows) const;

 private:
  struct Sums {
    double expected = 0, kept = 0;
  };
  std::vector<Sums> rows_;  // [row count]
};

// The measured relative cost of a run S wide against the plain steps of the same row count:
// exponential averages of each wide step's seconds over the plain average (observations clamped
// to [1, kMaxRatio] so that one pre-empted step cannot shut a width out for good).
class WidthCost {
 public:
  static constexpr double kFixed = 0.15;
  static constexpr double kFixedPerRow = 0.08;
  static constexpr double kPosition = 0.08;
  static constexpr double kWeight = 0.1;
  static constexpr double kMaxRatio = 4.0;
  void plain(std::int64_t rows, double seconds);
  void wide(std::int64_t rows, std::int64_t seq, double seconds);
  // cost(S) for S = 1..widest with `rows` rows (the span stays valid until the next call).
  std::span<const double> relative(std::int64_t rows, std::int64_t widest);
  // The estimate for a width never measured with `rows` rows.
  static double prior(std::int64_t rows, std::int64_t width);

 private:
  struct Rows {
    double plain = 0;           // average seconds of a plain step, 0 = none seen
    std::vector<double> ratio;  // [S]: average relative cost of width S, 0 = not measured
  };
  std::vector<Rows> rows_;  // [row count]
  std::vector<double> relative_;
};

}  // namespace ogai::generate
