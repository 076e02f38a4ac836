#include "sampling/candidates.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "base/error.h"

namespace ogai::sampling {

void fail_bad_logit(float value, size_t id) {
  fail(ErrorCode::kRuntime, "logits", "logit of token {} is {}; the model produced {} logits",
       id, value, std::isnan(value) ? "NaN" : "infinite");
}

void Candidates::reserve(size_t vocab_size) {
  items_.resize(vocab_size);
  size_ = 0;
}

void Candidates::gather_all(std::span<const float> logits) {
  OGAI_CHECK(items_.size() >= logits.size());
  size_ = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    float x = logits[i];
    if (x < INFINITY && x > -INFINITY) {
      push(x, static_cast<int32_t>(i));
    } else if (!(x == -INFINITY)) {
      fail_bad_logit(x, i);
    }
  }
  order_ = CandidateOrder::kById;
}

void Candidates::gather_top_k(std::span<const float> logits, size_t k) {
  OGAI_CHECK(items_.size() >= logits.size() && k >= 1);
  if (k >= logits.size()) return gather_all(logits);
  // Pass 1: a min-heap of the k largest finite logits; its top is the k-th largest.
  heap_.clear();
  heap_.reserve(k);
  float floor = -INFINITY;  // the k-th largest so far once the heap is full
  for (size_t i = 0; i < logits.size(); ++i) {
    float x = logits[i];
    if (x <= floor) continue;  // the common case once the heap is full; false for NaN
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
  }
  // Pass 2: every finite logit >= the k-th largest (ties included, as HF), in id order.
  size_ = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    float x = logits[i];
    if (x >= floor && x > -INFINITY) push(x, static_cast<int32_t>(i));
  }
  order_ = CandidateOrder::kById;
}

void Candidates::normalize() {
  if (size_ == 0) return;
  float max = -INFINITY;
  for (const Candidate& c : items()) max = std::max(max, c.logit);
  double sum = 0.0;
  for (Candidate& c : items()) {
    c.p = std::exp(c.logit - max);
    sum += c.p;
  }
  const double inv = 1.0 / sum;
  for (Candidate& c : items()) c.p = static_cast<float>(c.p * inv);
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
  std::sort(items_.begin(), items_.begin() + size_,
            [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
  order_ = CandidateOrder::kById;
}

}  // namespace ogai::sampling
