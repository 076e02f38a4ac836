#include "sampling/dense_weights.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "sampling/candidates.h"
#include "sampling/fast_exp.h"
#include "sampling/lanes.h"

namespace ogai::sampling {
namespace {

constexpr size_t kBlock = 8;

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

}  // namespace ogai::sampling
