// The pre-histogram sampler, verbatim (see legacy_sampler.h): candidates and dense weights. Compiled with
// -ffp-contract=off like the stage's own files so its exponentials have the same bits.
#include "tests/sampling/legacy_sampler.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "base/error.h"
#include "sampling/fast_exp.h"
#include "sampling/lanes.h"
#include "sampling/penalties.h"

namespace ogai::sampling::legacy {

void fail_bad_logit(float value, size_t id) {
  fail(ErrorCode::kRuntime, "logits", "logit of token {} is {}; the model produced {} logits", id, value,
       std::isnan(value) ? "NaN" : "infinite");
}

void Candidates::reserve(size_t vocab_size) {
  items_.resize(vocab_size);
  size_ = 0;
}

void Candidates::gather_all(std::span<const float> logits) {
  OGAI_CHECK(items_.size() >= logits.size());
  // Branch-free compaction: every logit is written, only finite ones advance the end.
  Candidate* out = items_.data();
  size_t n = 0;
  bool bad = false;
  for (size_t i = 0; i < logits.size(); ++i) {
    const float x = logits[i];
    out[n] = Candidate{x, 0.0f, 0.0f, static_cast<int32_t>(i)};
    const bool finite = x > -INFINITY && x < INFINITY;
    n += finite;
    bad |= !finite && !(x == -INFINITY);
  }
  if (bad) {
    for (size_t i = 0; i < logits.size(); ++i) {
      if (std::isnan(logits[i]) || logits[i] == INFINITY) fail_bad_logit(logits[i], i);
    }
  }
  size_ = n;
  order_ = CandidateOrder::kById;
  weights_valid_ = false;
}

void Candidates::start_list() {
  size_ = 0;
  order_ = CandidateOrder::kById;
  weights_valid_ = false;
}

template <class Visit>
void Candidates::top_k_passes(Visit&& visit, size_t k) {
  // Pass 1: a min-heap of the k largest finite logits; its top is the k-th largest.
  heap_.clear();
  heap_.reserve(k);
  float floor = -INFINITY;  // the k-th largest so far once the heap is full
  visit([&](float x, size_t i) {
    if (x <= floor) return;  // the common case once the heap is full; false for NaN
    if (!(x < INFINITY)) fail_bad_logit(x, i);
    if (heap_.size() < k) {
      heap_.push_back(x);
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      if (heap_.size() == k) floor = heap_.front();
    } else {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      heap_.back() = x;
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
      floor = heap_.front();
    }
  });
  // Pass 2: every finite logit >= the k-th largest (ties included, as HF), in id order.
  start_list();
  visit([&](float x, size_t i) {
    if (x >= floor && x > -INFINITY) push(x, static_cast<int32_t>(i));
  });
}

void Candidates::gather_top_k(std::span<const float> logits, size_t k) {
  OGAI_CHECK(items_.size() >= logits.size() && k >= 1);
  if (k >= logits.size()) return gather_all(logits);
  top_k_passes(
      [&](auto&& fn) {
        for (size_t i = 0; i < logits.size(); ++i) fn(logits[i], i);
      },
      k);
}

void Candidates::gather_top_k(std::span<const float> logits, size_t k, const AllowedTokens& allowed) {
  OGAI_CHECK(items_.size() >= logits.size() && k >= 1);
  if (k >= logits.size()) return gather_all(logits, allowed);
  top_k_passes([&](auto&& fn) { for_each_allowed(logits, allowed, fn); }, k);
}

void Candidates::gather_all(std::span<const float> logits, const AllowedTokens& allowed) {
  OGAI_CHECK(items_.size() >= logits.size());
  start_list();
  bool bad = false;
  if (allowed.listed) {
    for_each_allowed(logits, allowed, [&](float x, size_t i) {
      if (!(x < INFINITY)) fail_bad_logit(x, i);  // NaN or +inf; ids ascend, so the first one
      if (x > -INFINITY) push(x, static_cast<int32_t>(i));
    });
    return;
  }
  // Branch-free compaction per block, as gather_all(logits).
  Candidate* out = items_.data();
  size_t n = 0;
  for_each_allowed_block(
      logits, allowed,
      [&](const float* x, size_t begin, size_t count) {
        for (size_t j = 0; j < count; ++j) {
          out[n] = Candidate{x[j], 0.0f, 0.0f, static_cast<int32_t>(begin + j)};
          const bool finite = x[j] > -INFINITY && x[j] < INFINITY;
          n += finite;
          bad |= !finite && !(x[j] == -INFINITY);
        }
      },
      [](size_t, size_t) {});
  if (bad) {
    for_each_allowed(logits, allowed, [](float x, size_t i) {
      if (std::isnan(x) || x == INFINITY) fail_bad_logit(x, i);
    });
  }
  size_ = n;
}

void Candidates::gather_at_least(std::span<const float> logits, std::span<const float> weights, float threshold) {
  OGAI_CHECK(items_.size() >= logits.size() && weights.size() == logits.size());
  Candidate* out = items_.data();
  size_t n = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    out[n] = Candidate{logits[i], weights[i], 0.0f, static_cast<int32_t>(i)};
    n += logits[i] >= threshold;
  }
  size_ = n;
  order_ = CandidateOrder::kById;
  weights_valid_ = true;
}

// The loops below keep independent lanes or blocks (no single loop-carried chain) so that they
// vectorize or at least pipeline; their summation order is fixed, so results are deterministic.
namespace {

constexpr size_t kBlock = 8;

float max_logit(std::span<const Candidate> items) {
  float lane[kBlock];
  std::fill(lane, lane + kBlock, -INFINITY);
  size_t i = 0;
  for (; i + kBlock <= items.size(); i += kBlock) {
    for (size_t l = 0; l < kBlock; ++l) lane[l] = std::max(lane[l], items[i + l].logit);
  }
  for (; i < items.size(); ++i) lane[0] = std::max(lane[0], items[i].logit);
  return *std::max_element(lane, lane + kBlock);
}

// Sum of p over kBlock consecutive items, in a fixed pairwise order.
inline double block_sum(const Candidate* c) {
  double a = static_cast<double>(c[0].p) + c[1].p, b = static_cast<double>(c[2].p) + c[3].p;
  double d = static_cast<double>(c[4].p) + c[5].p, e = static_cast<double>(c[6].p) + c[7].p;
  return (a + b) + (d + e);
}

}  // namespace

double Candidates::total_weight() const {
  const Candidate* c = items_.data();
  double sum = 0.0;
  size_t i = 0;
  for (; i + kBlock <= size_; i += kBlock) sum += block_sum(c + i);
  for (; i < size_; ++i) sum += c[i].p;
  return sum;
}

size_t Candidates::find_cumulative(double target) const {
  const Candidate* c = items_.data();
  double cumulative = 0.0;
  size_t i = 0;
  for (; i + kBlock <= size_; i += kBlock) {
    double block = block_sum(c + i);
    if (cumulative + block > target) break;
    cumulative += block;
  }
  for (; i < size_; ++i) {
    cumulative += c[i].p;
    if (cumulative > target) return i;
  }
  // Only reachable through rounding inside the last block: the last item with nonzero weight.
  for (i = size_; i-- > 0;) {
    if (c[i].p > 0.0f) return i;
  }
  return size_;
}

double Candidates::exp_weights() {
  std::span<Candidate> live = items();
  const float max = max_logit(live);
  for (Candidate& c : live) c.p = exp_nonpositive(c.logit - max);
  weights_valid_ = true;
  return total_weight();
}

void Candidates::normalize() {
  if (size_ == 0) return;
  const double inv = 1.0 / exp_weights();
  for (Candidate& c : items()) c.p = static_cast<float>(c.p * inv);
}

void Candidates::ensure_weights() {
  if (!weights_valid_ && size_ > 0) exp_weights();
}

void Candidates::extend_rank_prefix(size_t from, size_t to) {
  to = std::min(to, size_);
  if (from >= to) return;
  Candidate* base = items_.data();
  if (to < size_) std::nth_element(base + from, base + to, base + size_, ranks_before);
  std::sort(base + from, base + to, ranks_before);
}

void Candidates::sort_by_id() {
  if (order_ == CandidateOrder::kById) return;
  std::sort(items_.begin(), items_.begin() + size_, [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
  order_ = CandidateOrder::kById;
}

}  // namespace ogai::sampling::legacy

namespace ogai::sampling::legacy {
namespace {

// kBlock (8) as above.

[[noreturn]] void fail_all_forbidden() {
  fail(ErrorCode::kInvalidArgument, "logits",
       "every token's logit is -inf after logit_bias and the sampling filters; nothing to pick");
}

// Max over finite and -inf logits (lanes.h); NaN or +inf raise the error.
float checked_max(std::span<const float> x) {
  lanes::MaxScan scan;
  const size_t vec = x.size() / 8 * 8;
  lanes::scan_all(x.data(), vec, scan);
  float max = scan.max();
  bool bad = scan.any_bad();
  for (size_t i = vec; i < x.size(); ++i) {
    bad |= !(x[i] < INFINITY);
    max = std::max(max, x[i]);
  }
  if (bad) {
    for (size_t j = 0; j < x.size(); ++j) {
      if (!(x[j] < INFINITY)) fail_bad_logit(x[j], j);
    }
  }
  return max;
}

// The same over the ids `allowed` (forbidden ids unread).
float checked_max(std::span<const float> x, const AllowedTokens& allowed) {
  lanes::MaxScan scan;
  float max = -INFINITY;
  bool bad = false;
  const size_t full = x.size() / 64;
  for (size_t w = 0; w < full && w < allowed.words.size(); ++w) {
    const std::uint64_t m = allowed.words[w];
    if (m == ~std::uint64_t{0}) {
      lanes::scan_all(x.data() + 64 * w, 64, scan);
    } else if (m != 0) {
      lanes::scan_masked(x.data() + 64 * w, m, scan);
    }
  }
  const std::uint64_t m = full < allowed.words.size() ? allowed.words[full] : 0;
  for (size_t i = full * 64; i < x.size(); ++i) {
    if (!((m >> (i % 64)) & 1)) continue;
    bad |= !(x[i] < INFINITY);
    max = std::max(max, x[i]);
  }
  if (bad || scan.any_bad()) {
    for_each_allowed(x, allowed, [](float v, size_t i) {
      if (!(v < INFINITY)) fail_bad_logit(v, i);
    });
  }
  return std::max(max, scan.max());
}

inline double block_sum(const float* w) {
  double a = static_cast<double>(w[0]) + w[1], b = static_cast<double>(w[2]) + w[3];
  double c = static_cast<double>(w[4]) + w[5], d = static_cast<double>(w[6]) + w[7];
  return (a + b) + (c + d);
}

}  // namespace

void DenseWeights::compute(std::span<const float> logits) {
  OGAI_CHECK(weights_.size() >= logits.size());
  const float max = max_ = checked_max(logits);
  if (max == -INFINITY) fail_all_forbidden();
  float* w = weights_.data();
  const float* x = logits.data();
  size_ = logits.size();
  for (size_t i = 0; i < size_; ++i) w[i] = exp_nonpositive(x[i] - max);
}

void DenseWeights::compute(std::span<float> logits, const AllowedTokens& allowed) {
  OGAI_CHECK(weights_.size() >= logits.size());
  const float max = max_ = checked_max(logits, allowed);
  if (max == -INFINITY) fail_all_forbidden();
  float* w = weights_.data();
  size_ = logits.size();
  float* out = logits.data();
  for_each_allowed_block(
      logits, allowed,
      [&](const float* x, size_t begin, size_t n) {
        for (size_t j = 0; j < n; ++j) w[begin + j] = exp_nonpositive(x[j] - max);
        if (x != out + begin) std::copy_n(x, n, out + begin);
      },
      [&](size_t begin, size_t n) {
        std::fill_n(w + begin, n, 0.0f);
        std::fill_n(out + begin, n, -INFINITY);
      });
}

void DenseWeights::apply_min_p(double min_p) {
  const float threshold = static_cast<float>(min_p);
  float* w = weights_.data();
  for (size_t i = 0; i < size_; ++i) w[i] = w[i] < threshold ? 0.0f : w[i];
}

double DenseWeights::total() const {
  const float* w = weights_.data();
  double total = 0.0;
  size_t i = 0;
  for (; i + kBlock <= size_; i += kBlock) total += block_sum(w + i);
  for (; i < size_; ++i) total += w[i];
  return total;
}

int64_t DenseWeights::draw(double u) const {
  const float* w = weights_.data();
  size_t i = 0;
  const double target = u * total();
  double cumulative = 0.0;
  for (i = 0; i + kBlock <= size_; i += kBlock) {
    const double block = block_sum(w + i);
    if (cumulative + block > target) break;
    cumulative += block;
  }
  for (; i < size_; ++i) {
    cumulative += w[i];
    if (cumulative > target) return static_cast<int64_t>(i);
  }
  // Only reachable through rounding inside the last block: the last id with a nonzero weight.
  for (i = size_; i-- > 0;) {
    if (w[i] > 0.0f) return static_cast<int64_t>(i);
  }
  OGAI_CHECK(false);  // the largest weight is 1
  return -1;
}

}  // namespace ogai::sampling::legacy
