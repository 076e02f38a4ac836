// Summary: a Prometheus summary of one quantity (e.g. time to first token): count and sum over
// all observations, and the 0.5 / 0.9 / 0.99 quantiles over the most recent `window` ones, so
// memory stays fixed however long the server runs. Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace ogai::serve {

class Summary {
 public:
  explicit Summary(std::size_t window = 1024) : window_(window) {}

  void observe(double value);

  // Appends the HELP / TYPE lines and the samples of metric `name` in Prometheus' text format.
  void write(std::string& out, const std::string& name, const std::string& help) const;

  // The q-quantile (nearest rank) of the recent window; 0 when there is none.
  double quantile(double q) const;
  std::size_t count() const;

 private:
  double quantile_locked(std::vector<double> sorted, double q) const;

  const std::size_t window_;
  mutable std::mutex mutex_;
  std::vector<double> recent_;  // ring buffer of the last window_ observations
  std::size_t next_ = 0;
  std::size_t count_ = 0;
  double sum_ = 0;
};

}  // namespace ogai::serve
