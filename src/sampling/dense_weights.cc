#include "sampling/dense_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "sampling/candidates.h"
#include "sampling/fast_exp.h"
#include "sampling/lanes.h"
#include "sampling/vector_clones.h"

// The vector helpers below are inline and internal: the ABI note about AVX vectors does not
// concern them.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ogai::sampling {
namespace {

constexpr std::size_t kBlock = DenseWeights::kBlock;

[[noreturn]] void fail_all_forbidden() {
  fail(ErrorCode::kInvalidArgument, "logits",
       "every token's logit is -inf after logit_bias and the sampling filters; nothing to pick");
}

// Max over finite and -inf logits (lanes.h); NaN or +inf raise the error.
float checked_max(std::span<const float> x) {
  lanes::MaxScan scan;
  const std::size_t vec = x.size() / 8 * 8;
  lanes::scan_all(x.data(), vec, scan);
  float max = scan.max();
  bool bad = scan.any_bad();
  for (std::size_t i = vec; i < x.size(); ++i) {
    bad |= !(x[i] < INFINITY);
    max = std::max(max, x[i]);
  }
  if (bad) {
    for (std::size_t j = 0; j < x.size(); ++j) {
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
  const std::size_t full = x.size() / 64;
  for (std::size_t w = 0; w < full && w < allowed.words.size(); ++w) {
    const std::uint64_t m = allowed.words[w];
    if (m == ~std::uint64_t{0}) {
      lanes::scan_all(x.data() + 64 * w, 64, scan);
    } else if (m != 0) {
      lanes::scan_masked(x.data() + 64 * w, m, scan);
    }
  }
  const std::uint64_t m = full < allowed.words.size() ? allowed.words[full] : 0;
  for (std::size_t i = full * 64; i < x.size(); ++i) {
    if (!((m >> (i % 64)) & 1)) continue;
    bad |= !(x[i] < INFINITY);
    max = std::max(max, x[i]);
  }
  if (bad || scan.any_bad()) {
    for_each_allowed(x, allowed, [](float v, std::size_t i) {
      if (!(v < INFINITY)) fail_bad_logit(v, i);
    });
  }
  return std::max(max, scan.max());
}

// The per-block kernels: fixed trip counts and no branches in the loops, so they vectorize.
struct Kernel {
  float temperature = 1.0f;
  float max = 0.0f;    // max y
  float min_w = 0.0f;  // weights below it become 0 (0: none)
  bool write = false;  // store y over the logits

  // w[j] = exp(y[j] - max) for y[j] = x[j] / temperature, j < n.
  void run(const float* x, float* y_out, float* w, std::size_t n) const {
    if (n == kBlock) return run_full(x, y_out, w);
    for (std::size_t j = 0; j < n; ++j) {
      const float y = temperature == 1.0f ? x[j] : x[j] / temperature;
      if (write) y_out[j] = y;
      const float e = exp_nonpositive_fast(y - max);
      w[j] = e < min_w ? 0.0f : e;
    }
  }
  void run_full(const float* x, float* y_out, float* w) const {
    const float m = max, lo = min_w;
    if (temperature == 1.0f) {
      if (write && y_out != x) std::copy_n(x, kBlock, y_out);
      for (std::size_t j = 0; j < kBlock; ++j) {
        const float e = exp_nonpositive_fast(x[j] - m);
        w[j] = e < lo ? 0.0f : e;
      }
      return;
    }
    alignas(64) float y[kBlock];
    const float t = temperature;
    for (std::size_t j = 0; j < kBlock; ++j) y[j] = x[j] / t;
    if (write) std::copy_n(y, kBlock, y_out);
    for (std::size_t j = 0; j < kBlock; ++j) {
      const float e = exp_nonpositive_fast(y[j] - m);
      w[j] = e < lo ? 0.0f : e;
    }
  }
};


// block_sum(), inline so that each vector clone has its own. In double lanes: float lanes (8
// weights each) would be 2x faster here but err by up to 5e-7 of the mass, which moves top-p cuts
// near top_p = 1 (WarpersTest.TopPWithoutTopKMatchesTheReferenceAtEveryThreshold, top_p 0.9999999).
inline double sum64(const float* w, std::size_t n) {
  double lane[8] = {};
  if (n == kBlock) {
    for (std::size_t i = 0; i < kBlock; i += 8)
      for (std::size_t l = 0; l < 8; ++l) lane[l] += static_cast<double>(w[i + l]);
  } else {
    for (std::size_t j = 0; j < n; ++j) lane[j % 8] += static_cast<double>(w[j]);
  }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Sum of w[j] * (y[j] - max) for j < n (n <= 64): products and 8 lanes in float (relative error
// of a block's sum below 1e-6: typical-p's entropy needs no more, its scores round log p to float),
// the lanes then in double, pairwise; a token of weight 0 adds 0 (its y - max may be -inf: clamped
// to the lowest float first).
inline double moment64(const float* y, const float* w, std::size_t n, float max) {
  float lane[8] = {};
  const float lowest = -std::numeric_limits<float>::max();
  if (n == kBlock) {
    using lanes::F4;
    const F4 m = {max, max, max, max}, low = {lowest, lowest, lowest, lowest};
    F4 lo = {0.0f, 0.0f, 0.0f, 0.0f}, hi = lo;  // lanes 0-3, 4-7
    for (std::size_t i = 0; i < kBlock; i += 8) {
      F4 a = lanes::load(y + i) - m, b = lanes::load(y + i + 4) - m;
      a = a < low ? low : a;
      b = b < low ? low : b;
      lo += lanes::load(w + i) * a;
      hi += lanes::load(w + i + 4) * b;
    }
    for (int l = 0; l < 4; ++l) lane[l] = lo[l], lane[l + 4] = hi[l];
  } else {
    for (std::size_t j = 0; j < n; ++j) lane[j % 8] += w[j] * std::max(y[j] - max, lowest);
  }
  auto d = [&](int l) { return static_cast<double>(lane[l]); };
  return ((d(0) + d(1)) + (d(2) + d(3))) + ((d(4) + d(5)) + (d(6) + d(7)));
}

// The largest of w[0, n) (n <= 64; weights are never NaN).
inline float block_max(const float* w, std::size_t n) {
  if (n == kBlock) {
    lanes::MaxScan scan;
    lanes::scan_all(w, kBlock, scan);
    return scan.max();
  }
  float m = 0.0f;
  for (std::size_t j = 0; j < n; ++j) m = std::max(m, w[j]);
  return m;
}

}  // namespace

double block_sum(const float* w, std::size_t n) { return sum64(w, n); }

void DenseWeights::reserve(std::size_t vocab_size) {
  weights_.resize(vocab_size);
  chunks_.resize((vocab_size + kChunk - 1) / kChunk);
}

OGAI_VECTOR_CLONES void DenseWeights::compute(std::span<float> logits, float temperature, double min_p,
                                              const AllowedTokens* allowed, bool write_processed,
                                              bool logit_moment) {
  OGAI_CHECK(weights_.size() >= logits.size() && temperature > 0.0f && (!logit_moment || write_processed));
  if (chunks_.size() * kChunk < logits.size()) chunks_.resize((logits.size() + kChunk - 1) / kChunk);
  const float raw_max = allowed ? checked_max(logits, *allowed) : checked_max(logits);
  if (raw_max == -INFINITY) fail_all_forbidden();
  // Division rounds monotonically, so max(x / T) == max(x) / T: the same bits as dividing first.
  max_ = temperature == 1.0f ? raw_max : raw_max / temperature;
  if (!(max_ < INFINITY)) {  // a quotient overflowed: the error the divided row would raise
    for (std::size_t i = 0; i < logits.size(); ++i)
      if (!(logits[i] / temperature < INFINITY) && (!allowed || allowed->allows(i)))
        fail_bad_logit(logits[i] / temperature, i);
  }
  size_ = logits.size();
  if (keep_maxima_ && maxima_.size() * kBlock < size_) maxima_.resize((size_ + kBlock - 1) / kBlock);
  Kernel kernel{temperature, max_, min_p > 0.0 ? static_cast<float>(min_p) : 0.0f, write_processed};
  float* w = weights_.data();
  float* x = logits.data();
  alignas(64) float masked[kBlock];
  double chunk = 0.0, moment = 0.0;
  for (std::size_t begin = 0; begin < size_; begin += kBlock) {
    const std::size_t n = std::min(kBlock, size_ - begin);
    std::uint64_t m = ~std::uint64_t{0};
    if (allowed) {
      const std::size_t word = begin / 64;
      m = word < allowed->words.size() ? allowed->words[word] : 0;
      if (n < 64) m &= (std::uint64_t{1} << n) - 1;
    }
    const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    if ((m & all) == all) {
      kernel.run(x + begin, x + begin, w + begin, n);
    } else if (m == 0) {
      std::fill_n(w + begin, n, 0.0f);
      std::fill_n(x + begin, n, -INFINITY);  // the row of materialize()
    } else {
      if (n == kBlock) {  // four lanes at a time (lanes.h), not a bit test per id
        for (std::size_t j = 0; j < kBlock; j += 4) {
          const lanes::F4 kept = lanes::keep(lanes::load(x + begin + j), static_cast<unsigned>(m >> j));
          std::memcpy(masked + j, &kept, sizeof kept);
        }
      } else {
        for (std::size_t j = 0; j < n; ++j) masked[j] = ((m >> j) & 1) ? x[begin + j] : -INFINITY;
      }
      kernel.run(masked, x + begin, w + begin, n);
      if (!write_processed) std::copy_n(masked, n, x + begin);  // the row of materialize()
    }
    chunk += sum64(w + begin, n);  // while the block is in cache (sum_chunks()'s order)
    if (logit_moment) moment += moment64(x + begin, w + begin, n, max_);
    if (keep_maxima_) maxima_[begin / kBlock] = block_max(w + begin, n);
    if (begin + n == size_ || (begin + n) % kChunk == 0) {
      chunks_[begin / kChunk] = chunk;
      chunk = 0.0;
    }
  }
  has_moment_ = logit_moment;
  moment_ = moment;
}

void DenseWeights::compute(std::span<const float> logits) {
  // Read only: write_processed false with temperature 1 and no mask never stores.
  compute(std::span<float>(const_cast<float*>(logits.data()), logits.size()), 1.0f, 0.0, nullptr, false);
}

void DenseWeights::compute(std::span<float> logits, const AllowedTokens& allowed) {
  compute(logits, 1.0f, 0.0, &allowed, false);
}

void DenseWeights::apply_min_p(double min_p) {
  const float threshold = static_cast<float>(min_p);
  float* w = weights_.data();
  for (std::size_t i = 0; i < size_; ++i) w[i] = w[i] < threshold ? 0.0f : w[i];
  sum_chunks();
}

void DenseWeights::sum_chunks() {
  const float* w = weights_.data();
  for (std::size_t c = 0; c * kChunk < size_; ++c) {
    double sum = 0.0;
    const std::size_t end = std::min(size_, (c + 1) * kChunk);
    for (std::size_t b = c * kChunk; b < end; b += kBlock) sum += sum64(w + b, std::min(kBlock, end - b));
    chunks_[c] = sum;
  }
}

double DenseWeights::total() const {
  double total = 0.0;
  for (std::size_t c = 0; c * kChunk < size_; ++c) total += chunks_[c];
  return total;
}

std::int64_t DenseWeights::draw(double u) const {
  const float* w = weights_.data();
  const double target = u * total();
  double cumulative = 0.0;
  std::size_t c = 0;
  const std::size_t chunks = (size_ + kChunk - 1) / kChunk;
  for (; c + 1 < chunks; ++c) {
    if (cumulative + chunks_[c] > target) break;
    cumulative += chunks_[c];
  }
  const std::size_t end = std::min(size_, (c + 1) * kChunk);
  std::size_t b = c * kChunk;
  for (; b + kBlock < end; b += kBlock) {
    const double block = sum64(w + b, kBlock);
    if (cumulative + block > target) break;
    cumulative += block;
  }
  for (std::size_t i = b; i < end; ++i) {
    cumulative += w[i];
    if (cumulative > target) return static_cast<std::int64_t>(i);
  }
  // Only reachable through rounding: the last id with a nonzero weight at or before the end.
  for (std::size_t i = end; i-- > 0;) {
    if (w[i] > 0.0f) return static_cast<std::int64_t>(i);
  }
  OGAI_CHECK(false);  // the largest weight is 1
  return -1;
}

namespace {

// The kept weights of one block of n ids starting at `begin` into out[0, n).
inline void kept_block(const float* w, const float* y, const float* scores, std::size_t begin, std::size_t n,
                       const KeptSet& kept, float* out) {
  const float cut_w = kept.rank_cut ? kept.cut_w : -1.0f, min_w = kept.min_w;
  int ties = 0;
  w += begin;
  for (std::size_t j = 0; j < n; ++j) {
    const float v = w[j];
    ties |= v == cut_w;
    out[j] = v > cut_w && v >= min_w ? v : 0.0f;
  }
  if (ties) {  // equal weights at the cut: the rank order (y, then id) decides
    for (std::size_t j = 0; j < n; ++j) {
      const float v = w[j], yv = y[begin + j] / kept.temperature;
      const auto id = static_cast<std::int64_t>(begin + j);
      if (v == cut_w && v >= min_w && (yv > kept.cut_y || (yv == kept.cut_y && id <= kept.cut_id))) out[j] = v;
    }
  }
  if (kept.score_cut) {
    const float s = kept.max_score;
    scores += begin;
    for (std::size_t j = 0; j < n; ++j) out[j] = scores[j] <= s ? out[j] : 0.0f;
  }
}

}  // namespace

bool DenseWeights::keeps(const KeptSet& kept, std::int64_t id, std::span<const float> y,
                         std::span<const float> scores) const {
  const auto i = static_cast<std::size_t>(id);
  const float v = weights_[i];
  if (!(v > 0.0f) || v < kept.min_w) return false;
  if (kept.score_cut && !(scores[i] <= kept.max_score)) return false;
  if (!kept.rank_cut || v > kept.cut_w) return true;
  const float yv = y[i] / kept.temperature;
  return v == kept.cut_w && (yv > kept.cut_y || (yv == kept.cut_y && id <= kept.cut_id));
}

OGAI_VECTOR_CLONES double DenseWeights::kept_total(const KeptSet& kept, std::span<const float> y, std::span<const float> scores) const {
  alignas(64) float block[kBlock];
  double total = 0.0;
  for (std::size_t b = 0; b < size_; b += kBlock) {
    const std::size_t n = std::min(kBlock, size_ - b);
    kept_block(weights_.data(), y.data(), scores.data(), b, n, kept, block);
    total += sum64(block, n);
  }
  return total;
}

OGAI_VECTOR_CLONES std::int64_t DenseWeights::draw_kept(double u, double total_kept, const KeptSet& kept, std::span<const float> y,
                                     std::span<const float> scores) const {
  const float* w = weights_.data();
  const double target = u * total_kept;
  double cumulative = 0.0;
  alignas(64) float block[kBlock];
  std::int64_t last = -1;  // the last kept id with a weight, for a target rounding left unreached
  for (std::size_t b = 0; b < size_; b += kBlock) {
    const std::size_t n = std::min(kBlock, size_ - b);
    kept_block(w, y.data(), scores.data(), b, n, kept, block);
    const double sum = sum64(block, n);
    if (sum == 0.0) continue;
    if (cumulative + sum > target) {
      for (std::size_t j = 0; j < n; ++j) {
        cumulative += block[j];
        if (block[j] > 0.0f) last = static_cast<std::int64_t>(b + j);
        if (cumulative > target) return static_cast<std::int64_t>(b + j);
      }
      continue;  // rounding inside the block: keep walking
    }
    cumulative += sum;
    for (std::size_t j = n; j-- > 0;) {
      if (block[j] > 0.0f) {
        last = static_cast<std::int64_t>(b + j);
        break;
      }
    }
  }
  OGAI_CHECK(last >= 0);  // the top token is always kept
  return last;
}

}  // namespace ogai::sampling
