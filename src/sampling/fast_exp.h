// exp_nonpositive(x), exp_nonpositive_fast(x): e^x for x <= 0 in float32, branch-free so loops
// over them vectorize, and built from +, *, and exact conversions only, so they give the same bits
// on every platform (the files that use them are compiled with -ffp-contract=off: no fused
// multiply-add on some targets only). Pure functions.
//
// Method: x = n ln2 + r with n = round(x / ln2) and |r| <= ln2/2 (ln2 split in a high part exact in
// float and a low correction); e^r by the degree-6 minimax polynomial of Cephes' expf
// (S. L. Moshier); the result is scaled by 2^n built in the exponent bits. Relative error about
// 2 ulp; inputs below -87.3 (where e^x is subnormal) and -inf give 0. Probabilities need no more:
// PyTorch's vectorized softmax is not correctly rounded either. exp_nonpositive stays the
// exponential of the candidate lists (short) and of the previous sampler kept by the tests.
//
// exp_nonpositive_fast: the same range reduction and form (1 + r + r^2 P(r), which keeps the
// result monotone in x: the dense weights' order is the logits' order, as cut_test.h needs), with
// P of degree 3 (coefficients fitted for ogai by iteratively reweighted least squares on the
// relative error over |r| <= ln2/2, then rounded to float) instead of Cephes' degree 5, and 2^n
// taken from the bits of the rounding sum (no float-to-int conversion): 5 multiplies and 5 adds
// for e^r instead of 7 and 7. Relative error below 2.0e-7 (about 3 ulp) on [-87.3, 0] against
// std::exp, and monotone over every float there (checked once over all 1.1e9 floats; the tests
// check a grid: fast_exp_test.cc). The dense weights and the log-probabilities' sum use it (about
// 20-25% less time per logit than exp_nonpositive with AVX2).
#pragma once

#include <cstdint>
#include <cstring>

namespace ogai::sampling {

inline float exp_nonpositive(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;     // exact in float, few significant bits
  constexpr float kLn2Lo = -2.12194440e-4f;  // ln 2 - kLn2Hi
  constexpr float kRound = 12582912.0f;      // 1.5 * 2^23: adding it rounds to an integer
  constexpr float kMin = -87.3f;
  const bool underflow = !(x >= kMin);  // also true for -inf
  const float clamped = underflow ? kMin : x;
  const float n = (clamped * kLog2e + kRound) - kRound;
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float er = (p * r) * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return underflow ? 0.0f : er * scale;
}

inline float exp_nonpositive_fast(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;
  constexpr float kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: t = y + kRound holds round(y) in its low bits
  constexpr float kMin = -87.3f;
  const bool underflow = !(x >= kMin);  // also true for -inf
  const float clamped = underflow ? kMin : x;
  const float t = clamped * kLog2e + kRound;
  const float n = t - kRound;  // exact
  const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  float p = 8.312508464e-3f;
  p = p * r + 4.189009219e-2f;
  p = p * r + 1.666711420e-1f;
  p = p * r + 4.999923110e-1f;
  const float er = (p * r) * r + r + 1.0f;  // 1 + r added last: the result is monotone in x
  // bits(t) = bits(kRound) + n, and bits(kRound) << 23 wraps to 0: (bits(t) + 127) << 23 is 2^n.
  std::uint32_t bits;
  std::memcpy(&bits, &t, sizeof bits);
  bits = (bits + 127u) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return underflow ? 0.0f : er * scale;
}

}  // namespace ogai::sampling
