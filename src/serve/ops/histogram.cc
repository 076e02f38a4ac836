#include "serve/ops/histogram.h"

#include <algorithm>

#include <fmt/format.h>

namespace ogai::serve {

Histogram::Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double value, std::uint64_t times) {
  if (times == 0) return;
  // The first bucket whose bound is >= value (Prometheus' `le`: less than or equal).
  const auto at = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  std::lock_guard lock(mutex_);
  counts_[at] += times;
  count_ += times;
  sum_ += value * static_cast<double>(times);
}

void Histogram::write(std::string& out, const std::string& name, const std::string& help,
                      const std::string& labels) const {
  const std::string sep = labels.empty() ? "" : ",";
  const std::string braces = labels.empty() ? "" : "{" + labels + "}";
  std::lock_guard lock(mutex_);
  out += fmt::format("# HELP {} {}\n# TYPE {} histogram\n", name, help, name);
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += fmt::format("{}_bucket{{{}{}le=\"{}\"}} {}\n", name, labels, sep, bounds_[i], cumulative);
  }
  out += fmt::format("{}_bucket{{{}{}le=\"+Inf\"}} {}\n", name, labels, sep, count_);
  out += fmt::format("{}_sum{} {}\n{}_count{} {}\n", name, braces, sum_, name, braces, count_);
}

std::uint64_t Histogram::count() const {
  std::lock_guard lock(mutex_);
  return count_;
}

double Histogram::sum() const {
  std::lock_guard lock(mutex_);
  return sum_;
}

std::vector<double> request_latency_buckets() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1,
          1.5,   2,      3,     5,    7.5,   10,   15,    20,  30,   60,  120, 300, 600};
}

std::vector<double> token_latency_buckets() {
  return {0.0005, 0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1,
          0.15,   0.2,   0.3,   0.5,   0.75, 1,     2.5,  5};
}

}  // namespace ogai::serve
