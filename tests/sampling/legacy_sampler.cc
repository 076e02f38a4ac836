// The pre-histogram sampler, verbatim (see legacy_sampler.h). Compiled with -ffp-contract=off like
// the stage's own files so its exponentials have the same bits.
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

namespace ogai::sampling::legacy {
namespace {

// First prefix length tried by the rank-prefix searches; doubled until the answer is inside.
constexpr size_t kFirstPrefix = 64;

size_t next_prefix(size_t sorted, size_t n) {
  return std::min(n, std::max(kFirstPrefix, 2 * sorted));
}

// Typical-p order: lower key (distance of the surprisal from the entropy) first, then lower id.
bool typical_before(const Candidate& a, const Candidate& b) {
  return a.key < b.key || (a.key == b.key && a.id < b.id);
}

// Sorts [from, to) of `items` by typical_before, given [0, from) is the sorted best prefix.
void extend_typical_prefix(std::span<Candidate> items, size_t from, size_t to) {
  Candidate* base = items.data();
  if (to < items.size()) std::nth_element(base + from, base + to, base + items.size(), typical_before);
  std::sort(base + from, base + to, typical_before);
}

// Stores |-log p - H| in key for every candidate; p must be normalized.
void typical_keys(Candidates& candidates) {
  float max = -INFINITY;
  for (const Candidate& c : candidates.items()) max = std::max(max, c.logit);
  double sum = 0.0;
  for (const Candidate& c : candidates.items()) sum += std::exp(static_cast<double>(c.logit - max));
  const double log_sum = std::log(sum);
  double entropy = 0.0;
  for (Candidate& c : candidates.items()) {
    c.key = static_cast<float>(static_cast<double>(c.logit - max) - log_sum);  // log p
    if (c.p > 0.0f) entropy -= static_cast<double>(c.p) * c.key;  // HF's nansum skips 0 * -inf
  }
  for (Candidate& c : candidates.items()) c.key = std::fabs(-c.key - static_cast<float>(entropy));
}

}  // namespace

void apply_temperature(std::span<float> logits, float temperature) {
  float* x = logits.data();
  const size_t n = logits.size();
  for (size_t i = 0; i < n; ++i) x[i] /= temperature;
}

namespace {

// Keeps, in rank order, the items whose higher-ranked weight is below top_p * total, and the
// min_keep best. p holds weights (normalized or not); total is their normalizer.
void cut_top_p(Candidates& candidates, double top_p, size_t min_keep, double total) {
  std::span<Candidate> items = candidates.items();
  const size_t n = items.size();
  const double need = top_p * total;
  size_t sorted = 0, keep = 0;
  double mass_above = 0.0;
  for (; keep < n; ++keep) {
    if (keep == sorted) {
      size_t grown = next_prefix(sorted, n);
      candidates.extend_rank_prefix(sorted, grown);
      sorted = grown;
    }
    if (keep >= min_keep && mass_above >= need) break;
    mass_above += items[keep].p;
  }
  candidates.truncate(keep);
  candidates.set_order(CandidateOrder::kByRank);
}

// Weight held by, and number of, the tokens with logit >= threshold.
std::pair<double, size_t> mass_at_least(std::span<const float> logits,
                                        std::span<const float> weights, float threshold) {
  double mass[8] = {};
  size_t count = 0, i = 0;
  for (; i + 8 <= logits.size(); i += 8) {
    for (size_t l = 0; l < 8; ++l) {
      const bool in = logits[i + l] >= threshold;
      mass[l] += in ? weights[i + l] : 0.0f;
      count += in;
    }
  }
  for (; i < logits.size(); ++i) {
    const bool in = logits[i] >= threshold;
    mass[0] += in ? weights[i] : 0.0f;
    count += in;
  }
  return {((mass[0] + mass[1]) + (mass[2] + mass[3])) + ((mass[4] + mass[5]) + (mass[6] + mass[7])),
          count};
}

}  // namespace

void filter_top_p(Candidates& candidates, double top_p, size_t min_keep) {
  candidates.ensure_weights();
  cut_top_p(candidates, top_p, min_keep, candidates.total_weight());
}

void gather_top_p(std::span<const float> logits, const DenseWeights& dense, double top_p,
                  size_t min_keep, Candidates& out) {
  const double total = dense.total();
  // A little above top_p * total, so that rounding in the sorted cut cannot need a token
  // outside the gathered set.
  const double need = top_p * total * (1.0 + 1e-6);
  const float max = dense.max_logit();
  bool gathered = false;
  for (float below = 2.0f; below <= 64.0f && !gathered; below *= 2.0f) {
    const float threshold = max - below;
    auto [mass, count] = mass_at_least(logits, dense.weights(), threshold);
    if (mass >= need && count >= min_keep) {
      out.gather_at_least(logits, dense.weights(), threshold);
      gathered = true;
    }
  }
  if (!gathered) out.gather_at_least(logits, dense.weights(), std::numeric_limits<float>::lowest());
  cut_top_p(out, top_p, min_keep, total);
}

void filter_min_p(Candidates& candidates, double min_p, size_t min_keep) {
  candidates.normalize();
  if (min_keep > 1 && candidates.order() != CandidateOrder::kByRank) {
    candidates.extend_rank_prefix(0, min_keep);  // the min_keep best lead the list
    candidates.set_order(CandidateOrder::kUnspecified);
  }
  std::span<Candidate> items = candidates.items();
  float p_max = 0.0f;
  for (const Candidate& c : items) p_max = std::max(p_max, c.p);
  const float threshold = static_cast<float>(min_p) * p_max;
  size_t out = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    bool protected_best = min_keep > 1 && i < min_keep;
    if (protected_best || !(items[i].p < threshold)) items[out++] = items[i];
  }
  candidates.truncate(out);
}

void filter_typical_p(Candidates& candidates, double mass, size_t min_keep) {
  candidates.normalize();
  typical_keys(candidates);
  std::span<Candidate> items = candidates.items();
  const size_t n = items.size();
  // Find the first position (in typical order) where the cumulative probability reaches mass.
  size_t sorted = 0, last = n;
  double cumulative = 0.0;
  for (size_t j = 0; j < n; ++j) {
    if (j == sorted) {
      size_t grown = next_prefix(sorted, n);
      extend_typical_prefix(items, sorted, grown);
      sorted = grown;
    }
    cumulative += items[j].p;
    if (cumulative >= mass) {
      last = j;
      break;
    }
  }
  if (last == n) return;  // the mass is never reached within rounding: HF keeps every token
  if (min_keep > sorted) extend_typical_prefix(items, sorted, std::min(min_keep, n));
  const float threshold = items[last].key;
  size_t out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i < min_keep || !(items[i].key > threshold)) items[out++] = items[i];
  }
  candidates.truncate(out);
  candidates.set_order(CandidateOrder::kUnspecified);
}

}  // namespace ogai::sampling::legacy

namespace ogai::sampling::legacy {
namespace {

[[noreturn]] void fail_nothing_left() {
  fail(ErrorCode::kInvalidArgument, "logits",
       "every token's logit is -inf after logit_bias and the sampling filters; nothing to pick");
}

}  // namespace

namespace {

// The reference rule, one id at a time: the first maximum; NaN is an error, +inf a maximum.
struct ScalarArgmax {
  TokenId best = -1;
  float best_value = -INFINITY;
  void add(float x, size_t i) {
    if (!(x <= best_value)) {  // greater, or NaN
      if (std::isnan(x)) fail_bad_logit(x, i);
      best_value = x;
      best = static_cast<TokenId>(i);
    }
  }
  TokenId result() const {
    if (best < 0) fail_nothing_left();
    return best;
  }
};

// The fast rule over 64-id blocks: a vector max per block (lanes.h), then the first id holding
// it when it beats the best so far. False when a NaN or +inf turned up (the caller then applies
// the reference rule). `word(w)` is the allowed bits of block w (all ones unconstrained).
template <class Word>
bool argmax_blocks(std::span<const float> logits, Word word, ScalarArgmax& out) {
  const size_t full = logits.size() / 64;
  for (size_t w = 0; w < full; ++w) {
    const std::uint64_t m = word(w);
    if (m == 0) continue;
    const float* x = logits.data() + 64 * w;
    lanes::MaxScan scan;
    lanes::scan_all(x, 64, scan);
    if (m != ~std::uint64_t{0}) {
      // The block's max over every id bounds its max over the allowed ones: most blocks are
      // passed over at the unmasked scan's cost.
      if (!scan.any_bad() && !(scan.max() > out.best_value)) continue;
      scan = lanes::MaxScan{};
      lanes::scan_masked(x, m, scan);
    }
    if (scan.any_bad()) return false;
    const float block_max = scan.max();
    if (!(block_max > out.best_value)) continue;
    size_t j = 0;
    while (!(((m >> j) & 1) && x[j] == block_max)) ++j;
    out.best = static_cast<TokenId>(64 * w + j);
    out.best_value = block_max;
  }
  const std::uint64_t m = full * 64 < logits.size() ? word(full) : 0;  // the tail, shorter than 64
  for (size_t i = full * 64; i < logits.size(); ++i)
    if ((m >> (i % 64)) & 1) out.add(logits[i], i);
  return true;
}

}  // namespace

TokenId argmax(std::span<const float> logits) {
  ScalarArgmax fast;
  auto every = [](size_t) { return ~std::uint64_t{0}; };
  if (argmax_blocks(logits, every, fast)) return fast.result();
  ScalarArgmax exact;
  for (size_t i = 0; i < logits.size(); ++i) exact.add(logits[i], i);
  return exact.result();
}

TokenId argmax(std::span<const float> logits, const AllowedTokens& allowed) {
  ScalarArgmax out;
  if (allowed.listed) {
    for_each_allowed(logits, allowed, [&](float x, size_t i) { out.add(x, i); });
    return out.result();
  }
  auto word = [&](size_t w) { return w < allowed.words.size() ? allowed.words[w] : 0; };
  if (argmax_blocks(logits, word, out)) return out.result();
  ScalarArgmax exact;
  for_each_allowed(logits, allowed, [&](float x, size_t i) { exact.add(x, i); });
  return exact.result();
}

Sampler::Sampler(SamplingParams params, int64_t vocab_size)
    : params_(std::move(params)),
      vocab_size_(vocab_size),
      rng_(params_.seed ? *params_.seed : nondeterministic_seed()) {
  params_.validate();
  history_.reset(vocab_size, {});
  for (const auto& [id, value] : params_.logit_bias) {
    if (id >= vocab_size) {
      fail(ErrorCode::kInvalidArgument, fmt::format("sampling.logit_bias[{}]", id),
           "token id {} is outside the vocabulary [0, {})", id, vocab_size);
    }
    bias_.emplace_back(id, static_cast<float>(value));
  }
  plan_chain();
  if (params_.constraint) constraint_ = params_.constraint->start();
}

void Sampler::plan_chain() {
  // HF clamps top_k to [min_tokens_to_keep, V]; at V it keeps everything.
  top_k_active_ = params_.top_k > 0 && std::max(params_.top_k, params_.min_tokens_to_keep) < vocab_size_;
  const bool rank_filters = top_k_active_ || params_.top_p < 1.0 || params_.typical_p < 1.0 ||
                            (params_.min_p > 0.0 && params_.min_tokens_to_keep > 1);
  dense_path_ = !rank_filters;
  if (params_.greedy()) return;  // argmax needs no scratch (distribution() reserves its own)
  const auto vocab = static_cast<size_t>(vocab_size_);
  if (dense_path_ || (!top_k_active_ && params_.top_p < 1.0)) dense_.reserve(vocab);
  if (!dense_path_) candidates_.reserve(vocab);
}

void Sampler::reset(std::span<const TokenId> prompt_ids) {
  history_.reset(vocab_size_, prompt_ids);
  if (params_.seed) rng_ = Rng(*params_.seed);
  if (params_.constraint) constraint_ = params_.constraint->start();
}

void Sampler::accept(TokenId token) {
  history_.push(token);
  if (constraint_) constraint_->accept(token);
}

void Sampler::check_size(std::span<const float> logits) const {
  if (static_cast<int64_t>(logits.size()) != vocab_size_) {
    fail(ErrorCode::kInvalidArgument, "logits", "{} values given; the sampler's vocabulary is {}", logits.size(),
         vocab_size_);
  }
}

const AllowedTokens* Sampler::constrain() {
  if (!constraint_) return nullptr;
  allowed_ = constraint_->allowed();
  return &allowed_;
}

// The processors touch only the ids they name, and each maps -inf to -inf: they run on the raw
// row, and a forbidden id stays forbidden however they change its logit.
void Sampler::apply_processors(std::span<float> logits) {
  if (!bias_.empty()) apply_logit_bias(logits, bias_);
  if (params_.repetition_penalty != 1.0) {
    apply_repetition_penalty(logits, history_, static_cast<float>(params_.repetition_penalty));
  }
  if (params_.frequency_penalty != 0.0 || params_.presence_penalty != 0.0) {
    apply_frequency_presence(logits, history_, static_cast<float>(params_.frequency_penalty),
                             static_cast<float>(params_.presence_penalty));
  }
}

void Sampler::apply_warpers(std::span<float> logits, const AllowedTokens* allowed) {
  const auto min_keep = static_cast<size_t>(params_.min_tokens_to_keep);
  if (params_.temperature != 1.0) apply_temperature(logits, static_cast<float>(params_.temperature));
  if (top_k_active_) {
    const size_t k = std::max(static_cast<size_t>(params_.top_k), min_keep);
    allowed ? candidates_.gather_top_k(logits, k, *allowed) : candidates_.gather_top_k(logits, k);
  } else if (params_.top_p < 1.0) {
    if (dense_.capacity() < logits.size()) dense_.reserve(logits.size());  // distribution() only
    allowed ? dense_.compute(logits, *allowed) : dense_.compute(logits);   // masks the row too
    gather_top_p(logits, dense_, params_.top_p, min_keep, candidates_);    // includes the cut
  } else {
    gather_all(logits, allowed);
  }
  if (candidates_.empty()) fail_nothing_left();
  if (top_k_active_ && params_.top_p < 1.0) filter_top_p(candidates_, params_.top_p, min_keep);
  if (params_.min_p > 0.0) filter_min_p(candidates_, params_.min_p, min_keep);
  if (params_.typical_p < 1.0) filter_typical_p(candidates_, params_.typical_p, min_keep);
}

TokenId Sampler::draw() {
  if (candidates_.order() == CandidateOrder::kUnspecified) candidates_.sort_by_id();
  candidates_.ensure_weights();
  const double target = rng_.uniform() * candidates_.total_weight();
  const size_t at = candidates_.find_cumulative(target);
  std::span<const Candidate> items = candidates_.items();
  if (at < items.size()) return items[at].id;
  // Unreachable while target < total; kept for a total of 0 (all weights underflowed).
  fail_nothing_left();
}

void Sampler::gather_all(std::span<const float> logits, const AllowedTokens* allowed) {
  allowed ? candidates_.gather_all(logits, *allowed) : candidates_.gather_all(logits);
}

TokenId Sampler::sample(std::span<float> logits) {
  check_size(logits);
  const AllowedTokens* allowed = constrain();
  apply_processors(logits);
  if (params_.greedy()) return allowed ? argmax(logits, *allowed) : argmax(logits);
  if (dense_path_) return sample_dense(logits, allowed);
  apply_warpers(logits, allowed);
  return draw();
}

TokenId Sampler::sample_dense(std::span<float> logits, const AllowedTokens* allowed) {
  if (params_.temperature != 1.0) apply_temperature(logits, static_cast<float>(params_.temperature));
  allowed ? dense_.compute(logits, *allowed) : dense_.compute(logits);
  if (params_.min_p > 0.0) dense_.apply_min_p(params_.min_p);
  return static_cast<TokenId>(dense_.draw(rng_.uniform()));
}

TokenId Sampler::next(std::span<float> logits) {
  TokenId token = sample(logits);
  accept(token);
  return token;
}

std::span<const Candidate> Sampler::distribution(std::span<float> logits) {
  check_size(logits);
  if (candidates_.capacity() < logits.size()) candidates_.reserve(logits.size());
  const AllowedTokens* allowed = constrain();
  apply_processors(logits);
  if (params_.greedy()) {
    gather_all(logits, allowed);
    if (candidates_.empty()) fail_nothing_left();
  } else {
    apply_warpers(logits, allowed);
    if (candidates_.order() == CandidateOrder::kUnspecified) candidates_.sort_by_id();  // canonical
  }
  candidates_.normalize();
  return candidates_.items();
}

}  // namespace ogai::sampling::legacy

