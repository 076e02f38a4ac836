#include "sampling/candidates.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "base/error.h"
#include "sampling/fast_exp.h"
#include "sampling/lanes.h"

namespace ogai::sampling {

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

void Candidates::gather_top_k(std::span<const float> logits, size_t k) { gather_top_k(logits, k, 1.0f, nullptr); }

void Candidates::gather_top_k(std::span<const float> logits, size_t k, const AllowedTokens& allowed) {
  gather_top_k(logits, k, 1.0f, &allowed);
}

void Candidates::divide(float temperature) {
  for (Candidate& c : items()) {
    const float y = c.logit / temperature;
    if (!(y < INFINITY)) fail_bad_logit(y, static_cast<size_t>(c.id));
    c.logit = y;
  }
}

// The single pass's state: a min-heap of the k largest values so far (its top the floor once
// full) and the list of every value at least `low` (<= floor) seen, in id order.
struct Candidates::TopK {
  Candidates& out;
  size_t k;
  float temperature;
  float floor = -INFINITY;  // the k-th largest so far once the heap is full
  float low = -INFINITY;    // values below it can be neither the k-th nor tied with it

  void offer(float x, size_t i) {
    if (!(x < INFINITY)) fail_bad_logit(x, i);  // NaN or +inf
    if (!(x >= low) || x == -INFINITY) return;
    out.push(x, static_cast<int32_t>(i));
    if (!(x > floor)) return;
    std::vector<float>& heap = out.heap_;
    if (heap.size() < k) {
      heap.push_back(x);
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
      if (heap.size() < k) return;
    } else {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.back() = x;
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    }
    floor = heap.front();
    // x / T == floor / T needs |x - floor| <= T * ulp(floor / T): within 2^-21 of |floor|
    // relative, or T * 2^-148 where the quotient is subnormal.
    low = temperature == 1.0f ? floor : floor - (std::fabs(floor) * 0x1p-20f + temperature * 0x1p-147f);
  }
};

void Candidates::gather_top_k(std::span<const float> logits, size_t k, float temperature,
                              const AllowedTokens* allowed) {
  OGAI_CHECK(items_.size() >= logits.size() && k >= 1 && temperature > 0.0f);
  if (k >= logits.size() || (allowed && allowed->listed)) {
    if (k >= logits.size()) {
      allowed ? gather_all(logits, *allowed) : gather_all(logits);
    } else {
      top_k_passes([&](auto&& fn) { for_each_allowed(logits, *allowed, fn); }, k);
    }
    if (temperature != 1.0f) divide(temperature);
    return;
  }
  start_list();
  heap_.clear();
  heap_.reserve(k);
  TopK top{*this, k, temperature};
  alignas(64) float masked[64];
  const size_t v = logits.size();
  for (size_t begin = 0; begin < v; begin += 64) {
    const size_t n = std::min<size_t>(64, v - begin);
    const float* x = logits.data() + begin;
    if (allowed) {
      const size_t word = begin / 64;
      std::uint64_t m = word < allowed->words.size() ? allowed->words[word] : 0;
      if (n < 64) m &= (std::uint64_t{1} << n) - 1;
      if (m == 0) continue;
      if (m != ~std::uint64_t{0}) {
        for (size_t j = 0; j < n; ++j) masked[j] = ((m >> j) & 1) ? x[j] : -INFINITY;
        x = masked;
      }
    }
    if (n == 64) {
      lanes::MaxScan scan;
      lanes::scan_all(x, 64, scan);
      if (!scan.any_bad() && scan.max() < top.low) continue;  // nothing here can enter
    }
    for (size_t j = 0; j < n; ++j) top.offer(x[j], begin + j);
  }
  // Cut the list to the values whose quotient reaches the k-th largest quotient (every listed
  // value when fewer than k are finite).
  const bool full = heap_.size() == k;
  const float kth = full ? (temperature == 1.0f ? top.floor : top.floor / temperature) : -INFINITY;
  size_t kept = 0;
  for (size_t i = 0; i < size_; ++i) {
    Candidate c = items_[i];
    if (temperature != 1.0f) {
      c.logit /= temperature;
      if (!(c.logit < INFINITY)) fail_bad_logit(c.logit, static_cast<size_t>(c.id));
    }
    if (c.logit >= kth) items_[kept++] = c;
  }
  size_ = kept;
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

}  // namespace ogai::sampling
