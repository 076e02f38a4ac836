#include "sampling/cut_test.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "base/error.h"
#include "sampling/vector_clones.h"

// The vector helpers below are inline and internal: the ABI note about passing AVX vectors does
// not concern them.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace ogai::sampling {
namespace {

constexpr std::size_t kBlock = DenseWeights::kBlock;

// Four-lane vectors (GCC/Clang vector extensions; AVX in the AVX2 clone, SSE2 otherwise): GCC
// leaves the equivalent loops over arrays scalar. Lane l of a pair (lo, hi) takes ids l, l + 8,
// ... (l < 4 in lo), the order of the scalar 8-lane sums; each operation rounds as its scalar
// form does.
using F4 = float __attribute__((vector_size(16)));
using I4 = std::int32_t __attribute__((vector_size(16)));
using D4 = double __attribute__((vector_size(32)));
using L4 = std::int64_t __attribute__((vector_size(32)));

inline F4 load4(const float* x) {
  F4 v;
  std::memcpy(&v, x, sizeof v);
  return v;
}
inline F4 splat(float v) { return F4{v, v, v, v}; }
inline D4 splat(double v) { return D4{v, v, v, v}; }
// x where the mask's lane is set, else +0.
inline F4 select(I4 mask, F4 x) { return reinterpret_cast<F4>(reinterpret_cast<I4>(x) & mask); }
inline D4 widen(F4 x) { return __builtin_convertvector(x, D4); }
inline F4 narrow(D4 x) { return __builtin_convertvector(x, F4); }
inline double lane_sum(D4 lo, D4 hi) {
  return ((lo[0] + lo[1]) + (lo[2] + lo[3])) + ((hi[0] + hi[1]) + (hi[2] + hi[3]));
}


inline double pairwise(const double* lane) {
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}


// Floats in order as integers (-0 and +0 both 0), and back.
inline std::int64_t ordinal(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return (u & 0x80000000u) ? -static_cast<std::int64_t>(u & 0x7FFFFFFFu) : static_cast<std::int64_t>(u);
}
inline float from_ordinal(std::int64_t o) {
  const std::uint32_t u = o >= 0 ? static_cast<std::uint32_t>(o) : (static_cast<std::uint32_t>(-o) | 0x80000000u);
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The first ordinal in [lo, hi] where `pred` (false, then true over the range) holds; hi + 1 if none.
template <class Pred>
std::int64_t first_true(std::int64_t lo, std::int64_t hi, Pred pred) {
  std::int64_t end = hi + 1;
  while (lo < end) {
    const std::int64_t mid = lo + (end - lo) / 2;
    if (pred(from_ordinal(mid))) {
      end = mid;
    } else {
      lo = mid + 1;
    }
  }
  return end;
}

// The floats y <= max with f(y) < score, as an interval [lo, hi] of ordinals (lo > hi: none).
// f is quasi-convex in y: -log p - H is nonincreasing in y (each operation of TypicalScore rounds
// monotonically), so its absolute value falls while it is positive and then rises; the set is
// one interval, found by bisection on the float order.
std::pair<std::int64_t, std::int64_t> scored_below_interval(const TypicalScore& f, float score) {
  const std::int64_t first = ordinal(-std::numeric_limits<float>::max()), last = ordinal(f.max);
  auto arg = [&](float y) {
    const float log_p = static_cast<float>(static_cast<double>(y - f.max) - f.log_total);
    return -log_p - f.entropy;
  };
  // r: the first y where -log p - H <= 0 (f nondecreasing from there on, nonincreasing before).
  const std::int64_t r = first_true(first, last, [&](float y) { return !(arg(y) > 0.0f); });
  // The part before r (f falling) ends at r - 1, the part from r on (f rising) starts at r.
  const bool falling = r - 1 >= first && f(from_ordinal(r - 1)) < score;
  const bool rising = r <= last && f(from_ordinal(r)) < score;
  if (!falling && !rising) return {1, 0};
  const std::int64_t lo = falling ? first_true(first, r - 1, [&](float y) { return f(y) < score; }) : r;
  const std::int64_t hi = rising ? first_true(r, last, [&](float y) { return !(f(y) < score); }) - 1 : r - 1;
  return {lo, hi};
}

}  // namespace

OGAI_VECTOR_CLONES TypicalScore typical_score(const DenseWeights& dense, std::span<const float> y) {
  std::span<const float> w = dense.weights();
  const std::size_t v = w.size();
  OGAI_CHECK(y.size() == v);
  const double total = dense.total();
  TypicalScore f;
  f.max = dense.max_logit();
  f.log_total = std::log(total);
  if (dense.has_logit_moment()) {
    // H = -sum p log p = log total - sum w (y - max) / total, with the sum from the dense pass.
    f.entropy = static_cast<float>(f.log_total - dense.logit_moment() / total);
    return f;
  }
  const float max = f.max;
  const double log_total = f.log_total;
  // H = -sum p log p over p > 0, with log p as filter_typical_p computes it; 8 lanes.
  D4 lo = splat(0.0), hi = lo;
  const F4 max4 = splat(max), zero = splat(0.0f);
  const D4 log_total4 = splat(log_total);
  auto term = [&](F4 y4, F4 w4) {  // w * log p where w > 0, else 0 (0 * -inf would be NaN)
    const D4 lp = widen(narrow(widen(y4 - max4) - log_total4));
    const L4 positive = widen(w4) > splat(0.0);
    return reinterpret_cast<D4>(reinterpret_cast<L4>(widen(w4) * lp) & positive);
  };
  std::size_t i = 0;
  for (; i + 8 <= v; i += 8) {
    lo += term(load4(y.data() + i), load4(w.data() + i));
    hi += term(load4(y.data() + i + 4), load4(w.data() + i + 4));
  }
  double lane[8] = {lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]};
  (void)zero;
  for (; i < v; ++i) {
    const float log_p = static_cast<float>(static_cast<double>(y[i] - max) - log_total);
    lane[0] += w[i] > 0.0f ? static_cast<double>(w[i]) * log_p : 0.0;
  }
  f.entropy = static_cast<float>(-pairwise(lane) / total);
  return f;
}

OGAI_VECTOR_CLONES double weight_ranked_above(const DenseWeights& dense, std::int64_t id, std::span<const float> x,
                                              float temperature) {
  std::span<const float> w = dense.weights();
  const std::size_t v = w.size();
  const auto at = static_cast<std::size_t>(id);
  OGAI_CHECK(at < v && x.size() == v);
  const float wi = w[at], yi = x[at] / temperature;
  std::span<const float> maxima = dense.block_maxima();
  double above = 0.0;
  for (std::size_t b = 0; b < v; b += kBlock) {
    if (!maxima.empty() && maxima[b / kBlock] < wi) continue;  // no weight above, none tied
    const std::size_t n = std::min(kBlock, v - b);
    const float* wb = w.data() + b;
    double lane[8] = {};
    bool tied = false;
    if (n == kBlock) {
      const F4 wi4 = splat(wi);
      D4 lo = splat(0.0), hi = lo;
      I4 tie = {0, 0, 0, 0};
      for (std::size_t j = 0; j < kBlock; j += 8) {
        const F4 a = load4(wb + j), c = load4(wb + j + 4);
        tie |= (a == wi4) | (c == wi4);
        lo += widen(select(a > wi4, a));
        hi += widen(select(c > wi4, c));
      }
      tied = (tie[0] | tie[1] | tie[2] | tie[3]) != 0;
      for (int l = 0; l < 4; ++l) lane[l] = lo[l], lane[l + 4] = hi[l];
    } else {
      for (std::size_t j = 0; j < n; ++j) {
        tied |= wb[j] == wi;
        lane[j % 8] += wb[j] > wi ? static_cast<double>(wb[j]) : 0.0;
      }
    }
    double block = pairwise(lane);
    if (tied) {
      // Equal weights: the rank order (y, then id) decides.
      for (std::size_t j = 0; j < n; ++j) {
        if (wb[j] != wi || b + j == at) continue;
        const float yj = x[b + j] / temperature;
        if (yj > yi || (yj == yi && b + j < at)) block += static_cast<double>(wb[j]);
      }
    }
    above += block;
  }
  return above;
}

OGAI_VECTOR_CLONES double weight_scored_below(const DenseWeights& dense, float score, std::span<const float> y,
                                              const TypicalScore& f) {
  std::span<const float> w = dense.weights();
  const std::size_t v = w.size();
  OGAI_CHECK(y.size() == v);
  const auto [first, last] = scored_below_interval(f, score);
  if (first > last) return 0.0;
  const float lo = from_ordinal(first), hi = from_ordinal(last);
  const F4 lo4 = splat(lo), hi4 = splat(hi);
  double below = 0.0;
  for (std::size_t b = 0; b < v; b += kBlock) {
    const std::size_t n = std::min(kBlock, v - b);
    const float* wb = w.data() + b;
    const float* yb = y.data() + b;
    double lane[8] = {};
    if (n == kBlock) {
      D4 dlo = splat(0.0), dhi = dlo;
      for (std::size_t j = 0; j < kBlock; j += 8) {
        const F4 a = load4(yb + j), c = load4(yb + j + 4);
        dlo += widen(select((a >= lo4) & (a <= hi4), load4(wb + j)));
        dhi += widen(select((c >= lo4) & (c <= hi4), load4(wb + j + 4)));
      }
      for (int l = 0; l < 4; ++l) lane[l] = dlo[l], lane[l + 4] = dhi[l];
    } else {
      for (std::size_t j = 0; j < n; ++j) lane[j % 8] += yb[j] >= lo && yb[j] <= hi ? static_cast<double>(wb[j]) : 0.0;
    }
    below += pairwise(lane);
  }
  return below;
}

}  // namespace ogai::sampling
