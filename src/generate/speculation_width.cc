#include "generate/speculation_width.h"

#include <algorithm>
#include <cstdlib>

#include "base/error.h"

namespace ogai::generate {

namespace {

double row_extra(const RowDraft& r, std::int64_t width) {
  double extra = 0, p = 1;
  const std::int64_t kept = r.trimmable ? std::min(r.proposed, width - 1) : r.proposed;
  for (std::int64_t j = 0; j < kept; ++j) extra += (p *= r.acceptance);
  return extra;
}

}  // namespace

double expected_extra_tokens(std::span<const RowDraft> rows, std::int64_t width) {
  double extra = 0;
  for (const RowDraft& r : rows) extra += row_extra(r, width);
  return extra;
}

std::int64_t choose_width(std::span<const RowDraft> rows, std::span<const double> cost, double yield) {
  std::int64_t least = 1, most = 1;
  for (const RowDraft& r : rows) {
    most = std::max(most, 1 + r.proposed);
    if (!r.trimmable) least = std::max(least, 1 + r.proposed);
  }
  if (static_cast<std::int64_t>(cost.size()) < most)
    fail(ErrorCode::kInternal, "speculation width", "costs for {} widths, proposals need {}", cost.size(), most);
  std::int64_t best_width = least;
  double best = -1;
  for (std::int64_t width = least; width <= most; ++width) {
    const double tokens = static_cast<double>(rows.size()) + yield * expected_extra_tokens(rows, width);
    double value = tokens / cost[static_cast<std::size_t>(width - 1)];
    if (width == 1) value *= kWidenMargin;  // a wide run must beat the plain step by the margin
    if (value > best * (1 + 1e-9)) {
      best = value;
      best_width = width;
    }
  }
  return best_width;
}

void YieldCalibration::observe(std::int64_t rows, double expected_extra, double kept_extra) {
  if (rows <= 0 || expected_extra <= 0 || kept_extra < 0) return;
  const auto r = static_cast<std::size_t>(rows);
  if (rows_.size() <= r) rows_.resize(r + 1);
  Sums& s = rows_[r];
  if (s.expected == 0) {
    s = {expected_extra, kept_extra};
    return;
  }
  s.expected += kWeight * (expected_extra - s.expected);
  s.kept += kWeight * (kept_extra - s.kept);
}

double YieldCalibration::factor(std::int64_t rows) const {
  const auto r = static_cast<std::size_t>(std::max<std::int64_t>(rows, 0));
  if (r >= rows_.size() || rows_[r].expected == 0) return 1.0;
  return std::clamp(rows_[r].kept / rows_[r].expected, kMin, kMax);
}

void WidthCost::plain(std::int64_t rows, double seconds) {
  if (rows <= 0 || seconds <= 0) return;
  const auto r = static_cast<std::size_t>(rows);
  if (rows_.size() <= r) rows_.resize(r + 1);
  double& average = rows_[r].plain;
  average = average == 0 ? seconds : average + kWeight * (seconds - average);
}

void WidthCost::wide(std::int64_t rows, std::int64_t seq, double seconds) {
  const auto r = static_cast<std::size_t>(rows);
  if (seq <= 1 || r >= rows_.size() || rows_[r].plain == 0 || seconds <= 0) return;
  const double observed = std::clamp(seconds / rows_[r].plain, 1.0, kMaxRatio);
  std::vector<double>& ratio = rows_[r].ratio;
  const auto s = static_cast<std::size_t>(seq);
  if (ratio.size() <= s) ratio.resize(s + 1, 0.0);
  ratio[s] = ratio[s] == 0 ? observed : ratio[s] + kWeight * (observed - ratio[s]);
}

double WidthCost::prior(std::int64_t rows, std::int64_t width) {
  if (width <= 1) return 1.0;
  const double fixed = kFixed + kFixedPerRow * static_cast<double>(std::max<std::int64_t>(rows, 1) - 1);
  return std::min(kMaxRatio, 1 + fixed + kPosition * static_cast<double>(width - 1));
}

std::span<const double> WidthCost::relative(std::int64_t rows, std::int64_t widest) {
  relative_.assign(static_cast<std::size_t>(std::max<std::int64_t>(widest, 1)), 1.0);
  static const std::vector<double> none;
  const auto r = static_cast<std::size_t>(std::max<std::int64_t>(rows, 0));
  const std::vector<double>& ratio = r < rows_.size() ? rows_[r].ratio : none;
  for (std::int64_t width = 2; width <= widest; ++width) {
    std::int64_t nearest = 0;  // the closest measured width of this row count
    for (std::int64_t s = 2; s < static_cast<std::int64_t>(ratio.size()); ++s)
      if (ratio[static_cast<std::size_t>(s)] > 0 && (nearest == 0 || std::abs(s - width) < std::abs(nearest - width)))
        nearest = s;
    relative_[static_cast<std::size_t>(width - 1)] =
        nearest == 0 ? prior(rows, width)
                     : std::max(1.0, ratio[static_cast<std::size_t>(nearest)] +
                                         kPosition * static_cast<double>(width - nearest));
  }
  return relative_;
}

}  // namespace ogai::generate
