#include "serve/ops/summary.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ogai::serve {

void Summary::observe(double value) {
  std::lock_guard lock(mutex_);
  if (recent_.size() < window_) {
    recent_.push_back(value);
  } else {
    recent_[next_] = value;
    next_ = (next_ + 1) % window_;
  }
  ++count_;
  sum_ += value;
}

double Summary::quantile_locked(std::vector<double> sorted, double q) const {
  if (sorted.empty()) return 0;
  std::sort(sorted.begin(), sorted.end());
  auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

double Summary::quantile(double q) const {
  std::lock_guard lock(mutex_);
  return quantile_locked(recent_, q);
}

std::size_t Summary::count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

void Summary::write(std::string& out, const std::string& name, const std::string& help) const {
  std::lock_guard lock(mutex_);
  out += fmt::format("# HELP {} {}\n# TYPE {} summary\n", name, help, name);
  for (double q : {0.5, 0.9, 0.99}) {
    if (recent_.empty())  // no observation yet: Prometheus' NaN, not a quantile of 0
      out += fmt::format("{}{{quantile=\"{}\"}} NaN\n", name, q);
    else
      out += fmt::format("{}{{quantile=\"{}\"}} {}\n", name, q, quantile_locked(recent_, q));
  }
  out += fmt::format("{}_sum {}\n{}_count {}\n", name, sum_, name, count_);
}

}  // namespace ogai::serve
