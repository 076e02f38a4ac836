#include "generate/token_logprobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sampling/fast_exp.h"
#include "sampling/vector_clones.h"

namespace ogai::generate {
namespace {

// Heap order: the worst candidate (lowest logit, then higher id) at the front.
bool better(const TokenLogprob& a, const TokenLogprob& b) {
  return a.logprob > b.logprob || (a.logprob == b.logprob && a.id < b.id);
}

// Replaces the heap's worst entry with (id, x).
void replace_worst(std::vector<TokenLogprob>& heap, TokenId id, float x) {
  std::pop_heap(heap.begin(), heap.end(), better);
  heap.back() = {id, x};
  std::push_heap(heap.begin(), heap.end(), better);
}

constexpr std::size_t kLanes = 8;  // independent accumulators, so the loops vectorize

// The largest logit (NaN is the sampler's to reject). The streaming passes here have AVX2 clones
// (sampling/vector_clones.h): the exponentials are compute-bound.
OGAI_VECTOR_CLONES float row_max(std::span<const float> row) {
  float lane[kLanes];
  std::fill(lane, lane + kLanes, -std::numeric_limits<float>::infinity());
  std::size_t i = 0;
  for (; i + kLanes <= row.size(); i += kLanes)
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] = std::max(lane[l], row[i + l]);
  float max = *std::max_element(lane, lane + kLanes);
  for (; i < row.size(); ++i) max = std::max(max, row[i]);
  return max;
}

// log(sum exp(x - max)) over the row; -inf logits add 0. Exponentials are computed a block at a
// time into a buffer, summed in float lanes within the block and in double across blocks.
OGAI_VECTOR_CLONES float log_sum_exp_shifted(std::span<const float> row, float max) {
  constexpr std::size_t kBlock = 256;
  float buffer[kBlock];
  double sum = 0;
  for (std::size_t begin = 0; begin < row.size(); begin += kBlock) {
    const std::size_t n = std::min(kBlock, row.size() - begin);
    const float* x = row.data() + begin;
    for (std::size_t i = 0; i < n; ++i) buffer[i] = sampling::exp_nonpositive_fast(x[i] - max);
    std::fill(buffer + n, buffer + kBlock, 0.0f);
    float lane[kLanes] = {};
    for (std::size_t i = 0; i < kBlock; i += kLanes)
      for (std::size_t l = 0; l < kLanes; ++l) lane[l] += buffer[i + l];
    for (float v : lane) sum += v;
  }
  return static_cast<float>(std::log(sum));
}

// The n best (logit, id) pairs of the row into `heap` (worst at the front). Ids are scanned in
// ascending order, so a later id enters only with a strictly larger logit: ties keep the lower id.
void select_top(std::span<const float> row, std::size_t n, std::vector<TokenLogprob>& heap) {
  heap.clear();
  const std::size_t first = std::min(n, row.size());
  for (std::size_t i = 0; i < first; ++i) heap.push_back({static_cast<TokenId>(i), row[i]});
  std::make_heap(heap.begin(), heap.end(), better);
  if (heap.empty()) return;
  float threshold = heap.front().logprob;
  constexpr std::size_t kBlock = 64;  // blocks whose (vectorized) maximum does not pass are skipped
  for (std::size_t begin = first; begin < row.size(); begin += kBlock) {
    const std::size_t end = std::min(row.size(), begin + kBlock);
    if (!(row_max(row.subspan(begin, end - begin)) > threshold)) continue;
    for (std::size_t i = begin; i < end; ++i) {
      if (row[i] > threshold) {
        replace_worst(heap, static_cast<TokenId>(i), row[i]);
        threshold = heap.front().logprob;
      }
    }
  }
}

// One pass over the row for LogprobRecorder::observe(): copies it into `copy`, returns its max and
// leaves the n best (logit, id) pairs in `heap`, as select_top() and row_max() would (a block of
// 64 whose maximum cannot enter the heap is only copied). NaN is skipped by the max, as there.
// kCopy false: the same without the copy (the sampler leaves the row as it is).
template <bool kCopy>
[[gnu::always_inline]] inline float copy_max_select_body(std::span<const float> row, float* copy, std::size_t n,
                                                         std::vector<TokenLogprob>& heap) {
  heap.clear();
  const std::size_t first = std::min(n, row.size());
  for (std::size_t i = 0; i < first; ++i) heap.push_back({static_cast<TokenId>(i), row[i]});
  std::make_heap(heap.begin(), heap.end(), better);
  float threshold = heap.empty() ? std::numeric_limits<float>::infinity() : heap.front().logprob;
  float lane[kLanes];
  std::fill(lane, lane + kLanes, -std::numeric_limits<float>::infinity());
  constexpr std::size_t kBlock = 64;
  std::size_t begin = 0;
  for (; begin + kBlock <= row.size(); begin += kBlock) {
    const float* x = row.data() + begin;
    float block[kLanes];
    std::fill(block, block + kLanes, -std::numeric_limits<float>::infinity());
    for (std::size_t i = 0; i < kBlock; i += kLanes) {
      for (std::size_t l = 0; l < kLanes; ++l) {
        if constexpr (kCopy) copy[begin + i + l] = x[i + l];
        block[l] = std::max(block[l], x[i + l]);
      }
    }
    for (std::size_t l = 0; l < kLanes; ++l) lane[l] = std::max(lane[l], block[l]);
    if (!(*std::max_element(block, block + kLanes) > threshold)) continue;
    for (std::size_t i = std::max(begin, first); i < begin + kBlock; ++i) {
      if (x[i - begin] > threshold) {
        replace_worst(heap, static_cast<TokenId>(i), x[i - begin]);
        threshold = heap.front().logprob;
      }
    }
  }
  float max = *std::max_element(lane, lane + kLanes);
  for (std::size_t i = begin; i < row.size(); ++i) {
    if constexpr (kCopy) copy[i] = row[i];
    max = std::max(max, row[i]);
    if (i >= first && row[i] > threshold) {
      replace_worst(heap, static_cast<TokenId>(i), row[i]);
      threshold = heap.front().logprob;
    }
  }
  return max;
}

OGAI_VECTOR_CLONES float copy_max_select(std::span<const float> row, float* copy, std::size_t n,
                                         std::vector<TokenLogprob>& heap) {
  return copy_max_select_body<true>(row, copy, n, heap);
}

OGAI_VECTOR_CLONES float max_select(std::span<const float> row, std::size_t n, std::vector<TokenLogprob>& heap) {
  return copy_max_select_body<false>(row, nullptr, n, heap);
}

// Turns the heap of raw logits into the sorted top list of logprobs.
void finish_top(std::vector<TokenLogprob>& heap, float max, float log_sum, std::vector<TokenLogprob>& top) {
  std::sort_heap(heap.begin(), heap.end(), better);  // best first
  top.resize(heap.size());
  for (std::size_t i = 0; i < heap.size(); ++i) top[i] = {heap[i].id, (heap[i].logprob - max) - log_sum};
}

}  // namespace

TokenLogprobs compute_token_logprobs(std::span<const float> logits, TokenId chosen, int top_n) {
  std::vector<TokenLogprob> heap;
  select_top(logits, static_cast<std::size_t>(std::max(top_n, 0)), heap);
  const float max = row_max(logits);
  const float log_sum = log_sum_exp_shifted(logits, max);
  TokenLogprobs entry;
  entry.id = chosen;
  entry.logprob = (logits[static_cast<std::size_t>(chosen)] - max) - log_sum;
  finish_top(heap, max, log_sum, entry.top);
  return entry;
}

std::span<float> LogprobRecorder::observe(std::span<float> raw, bool sampler_leaves_row) {
  if (!top_n_) return raw;
  raw_ = raw;
  has_log_sum_ = false;  // entry() sums, unless the sampler hands its sum over
  const auto n = static_cast<std::size_t>(*top_n_);
  if (sampler_leaves_row) {
    max_ = max_select(raw, n, heap_);
    return raw;
  }
  copy_.resize(raw.size());
  max_ = copy_max_select(raw, copy_.data(), n, heap_);
  return copy_;
}

const TokenLogprobs* LogprobRecorder::entry(TokenId chosen, const std::optional<sampling::RawSoftmaxSum>& sum) {
  if (!top_n_) return nullptr;
  if (sum && sum->max == max_ && sum->total > 0.0) {
    log_sum_ = static_cast<float>(std::log(sum->total));
    has_log_sum_ = true;
  } else if (!has_log_sum_) {
    log_sum_ = log_sum_exp_shifted(raw_, max_);
    has_log_sum_ = true;
  }
  entry_.id = chosen;
  entry_.logprob = (raw_[static_cast<std::size_t>(chosen)] - max_) - log_sum_;
  finish_top(heap_, max_, log_sum_, entry_.top);
  return &entry_;
}

}  // namespace ogai::generate
