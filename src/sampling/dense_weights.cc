#include "sampling/dense_weights.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "sampling/candidates.h"
#include "sampling/fast_exp.h"

namespace ogai::sampling {
namespace {

constexpr size_t kBlock = 8;

// Lane maxima of x[0, n) into lane (8 lanes by position; the tail into lane 0); bad |= NaN or +inf.
inline void lane_max(const float* x, size_t n, float* lane, bool& any_bad) {
  bool bad = false;
  size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (size_t l = 0; l < kBlock; ++l) {
      const float v = x[i + l];
      bad |= !(v < INFINITY);
      lane[l] = std::max(lane[l], v);
    }
  }
  for (; i < n; ++i) {
    bad |= !(x[i] < INFINITY);
    lane[0] = std::max(lane[0], x[i]);
  }
  any_bad |= bad;
}

[[noreturn]] void fail_all_forbidden() {
  fail(ErrorCode::kInvalidArgument, "logits",
       "every token's logit is -inf after logit_bias and the sampling filters; nothing to pick");
}

// Max over finite and -inf logits in 8 lanes; NaN or +inf raise the error.
float checked_max(std::span<const float> x) {
  float lane[kBlock];
  std::fill(lane, lane + kBlock, -INFINITY);
  bool bad = false;
  lane_max(x.data(), x.size(), lane, bad);
  if (bad) {
    for (size_t j = 0; j < x.size(); ++j) {
      if (!(x[j] < INFINITY)) fail_bad_logit(x[j], j);
    }
  }
  return *std::max_element(lane, lane + kBlock);
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

void DenseWeights::compute(std::span<const float> logits, const AllowedTokens& allowed) {
  OGAI_CHECK(weights_.size() >= logits.size());
  float lane[kBlock];
  std::fill(lane, lane + kBlock, -INFINITY);
  bool bad = false;
  for_each_allowed_block(
      logits, allowed, [&](const float* x, size_t, size_t n) { lane_max(x, n, lane, bad); }, [](size_t, size_t) {});
  if (bad) {
    for_each_allowed(logits, allowed, [](float x, size_t i) {
      if (!(x < INFINITY)) fail_bad_logit(x, i);
    });
  }
  const float max = max_ = *std::max_element(lane, lane + kBlock);
  if (max == -INFINITY) fail_all_forbidden();
  float* w = weights_.data();
  size_ = logits.size();
  for_each_allowed_block(
      logits, allowed,
      [&](const float* x, size_t begin, size_t n) {
        for (size_t j = 0; j < n; ++j) w[begin + j] = exp_nonpositive(x[j] - max);
      },
      [&](size_t begin, size_t n) { std::fill_n(w + begin, n, 0.0f); });
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
