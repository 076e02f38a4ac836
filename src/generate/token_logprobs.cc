#include "generate/token_logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sampling/fast_exp.h"

namespace ogai::generate {
namespace {

// Heap order: the worst candidate (lowest logit, then higher id) at the front.
bool better(const TokenLogprob& a, const TokenLogprob& b) {
  return a.logprob > b.logprob || (a.logprob == b.logprob && a.id < b.id);
}

// Keeps the `n` best (logit, id) pairs seen so far in `heap`; ids arrive in ascending order, so a
// later id enters only with a strictly larger logit.
inline void offer(std::vector<TokenLogprob>& heap, std::size_t n, std::int32_t id, float x) {
  if (heap.size() < n) {
    heap.push_back({id, x});
    std::push_heap(heap.begin(), heap.end(), better);
  } else if (x > heap.front().logprob) {
    std::pop_heap(heap.begin(), heap.end(), better);
    heap.back() = {id, x};
    std::push_heap(heap.begin(), heap.end(), better);
  }
}

// log(sum exp(x - max)) over the row; -inf logits add 0.
float log_sum_exp_shifted(std::span<const float> row, float max) {
  double sum = 0;
  constexpr std::size_t kBlock = 256;
  for (std::size_t begin = 0; begin < row.size(); begin += kBlock) {
    const std::size_t end = std::min(row.size(), begin + kBlock);
    float block = 0;  // float within a block (vectorizes), double across blocks
    for (std::size_t i = begin; i < end; ++i) block += sampling::exp_nonpositive(row[i] - max);
    sum += block;
  }
  return static_cast<float>(std::log(sum));
}

// Turns the heap of raw logits into the sorted top list of logprobs.
void finish_top(std::vector<TokenLogprob>& heap, float max, float log_sum, std::vector<TokenLogprob>& top) {
  std::sort_heap(heap.begin(), heap.end(), better);  // best first
  top.resize(heap.size());
  for (std::size_t i = 0; i < heap.size(); ++i) top[i] = {heap[i].id, (heap[i].logprob - max) - log_sum};
}

}  // namespace

TokenLogprobs compute_token_logprobs(std::span<const float> logits, std::int32_t chosen, int top_n) {
  float max = -std::numeric_limits<float>::infinity();
  std::vector<TokenLogprob> heap;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    max = std::max(max, logits[i]);
    if (top_n > 0) offer(heap, static_cast<std::size_t>(top_n), static_cast<std::int32_t>(i), logits[i]);
  }
  const float log_sum = log_sum_exp_shifted(logits, max);
  TokenLogprobs entry;
  entry.id = chosen;
  entry.logprob = (logits[static_cast<std::size_t>(chosen)] - max) - log_sum;
  finish_top(heap, max, log_sum, entry.top);
  return entry;
}

std::span<float> LogprobRecorder::observe(std::span<float> raw) {
  if (!top_n_) return raw;
  raw_ = raw;
  copy_.resize(raw.size());
  heap_.clear();
  const auto n = static_cast<std::size_t>(*top_n_);
  float max = -std::numeric_limits<float>::infinity();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const float x = raw[i];
    copy_[i] = x;
    max = std::max(max, x);
    if (n > 0) offer(heap_, n, static_cast<std::int32_t>(i), x);
  }
  max_ = max;
  log_sum_ = log_sum_exp_shifted(raw, max);
  return copy_;
}

const TokenLogprobs* LogprobRecorder::entry(std::int32_t chosen) {
  if (!top_n_) return nullptr;
  entry_.id = chosen;
  entry_.logprob = (raw_[static_cast<std::size_t>(chosen)] - max_) - log_sum_;
  finish_top(heap_, max_, log_sum_, entry_.top);
  return &entry_;
}

}  // namespace ogai::generate
