// Histogram: a Prometheus histogram of one quantity (e.g. time to first token) over fixed,
// ascending upper bounds: cumulative `_bucket{le=...}` counts, `_sum` and `_count` since the
// server started. Unlike a summary it aggregates across replicas (histogram_quantile() over the
// sum of several servers' buckets) and a fresh server reports zero counts, never a made-up
// quantile. Memory is fixed: one counter per bucket. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ogai::serve {

class Histogram {
 public:
  // `bounds` ascending, finite; a +Inf bucket is always added.
  explicit Histogram(std::vector<double> bounds);

  // Counts `value` `times` times (e.g. one mean inter-token gap for every gap of a generation).
  void observe(double value, std::uint64_t times = 1);

  // Appends the HELP / TYPE lines and the samples of metric `name`. `labels` are put inside
  // every sample's braces before `le` (e.g. `model_name="m"`); may be empty.
  void write(std::string& out, const std::string& name, const std::string& help, const std::string& labels) const;

  std::uint64_t count() const;
  double sum() const;

 private:
  const std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> counts_;  // per bucket, not cumulative; [bounds_.size()] is +Inf
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

// Upper bounds in seconds for request latencies (TTFT, end to end, queue time): 1 ms to 10 min.
std::vector<double> request_latency_buckets();
// Upper bounds in seconds for the gap between two generated tokens: 0.5 ms to 5 s.
std::vector<double> token_latency_buckets();

}  // namespace ogai::serve
