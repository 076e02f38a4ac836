#include "generate/speculation_width.h"

#include <algorithm>

namespace ogai::generate {

std::int64_t choose_width(std::span<const RowDraft> rows, double per_position_cost) {
  std::int64_t least = 1, most = 1;
  for (const RowDraft& r : rows) {
    most = std::max(most, 1 + r.proposed);
    if (!r.trimmable) least = std::max(least, 1 + r.proposed);
  }
  std::int64_t best_width = least;
  double best = -1;
  for (std::int64_t width = least; width <= most; ++width) {
    double tokens = 0;
    for (const RowDraft& r : rows) {
      tokens += 1;
      double p = 1;
      const std::int64_t kept = r.trimmable ? std::min(r.proposed, width - 1) : r.proposed;
      for (std::int64_t j = 0; j < kept; ++j) tokens += (p *= r.acceptance);
    }
    const double value = tokens / (1 + per_position_cost * static_cast<double>(width - 1));
    if (value > best * (1 + 1e-9)) {
      best = value;
      best_width = width;
    }
  }
  return best_width;
}

void WidthCost::plain(std::int64_t rows, double seconds) {
  if (rows <= 0 || seconds <= 0) return;
  const auto r = static_cast<std::size_t>(rows);
  if (plain_.size() <= r) plain_.resize(r + 1, 0.0);
  plain_[r] = plain_[r] == 0 ? seconds : plain_[r] + kWeight * (seconds - plain_[r]);
}

void WidthCost::wide(std::int64_t rows, std::int64_t seq, double seconds) {
  const auto r = static_cast<std::size_t>(rows);
  if (seq <= 1 || r >= plain_.size() || plain_[r] == 0 || seconds <= 0) return;
  const double observed = std::max(0.0, (seconds / plain_[r] - 1) / static_cast<double>(seq - 1));
  c_ += kWeight * (observed - c_);
}

}  // namespace ogai::generate
