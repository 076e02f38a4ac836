// Lanes: the largest of a run of logits and whether any is NaN (or +inf), in four-float vectors
// (GCC/Clang vector extensions: SSE2 or NEON registers), with forbidden ids of a 64-bit allowed
// word counted as -inf. GCC leaves the equivalent loops over float arrays scalar (a max
// reduction with a NaN test), 3-4x slower over a 262k row; these run at about the speed of
// copying it. Results equal the scalar ones (a max is exact; which of +0 and -0 wins is not
// specified, and every caller compares with ==, where they are equal). Pure functions.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ogai::sampling::lanes {

using F4 = float __attribute__((vector_size(16)));
using I4 = std::int32_t __attribute__((vector_size(16)));

// Row b of 16: all ones in lane j where bit j of b is set.
inline constexpr I4 kNibbleMasks[16] = {{0, 0, 0, 0},   {-1, 0, 0, 0},   {0, -1, 0, 0},   {-1, -1, 0, 0},
                                        {0, 0, -1, 0},  {-1, 0, -1, 0},  {0, -1, -1, 0},  {-1, -1, -1, 0},
                                        {0, 0, 0, -1},  {-1, 0, 0, -1},  {0, -1, 0, -1},  {-1, -1, 0, -1},
                                        {0, 0, -1, -1}, {-1, 0, -1, -1}, {0, -1, -1, -1}, {-1, -1, -1, -1}};

inline F4 load(const float* x) {
  F4 v;
  std::memcpy(&v, x, sizeof v);
  return v;
}

// Lane-wise running max and "not below +inf" (NaN or +inf) flags.
struct MaxScan {
  F4 max0 = {-INFINITY, -INFINITY, -INFINITY, -INFINITY}, max1 = max0;
  I4 bad = {0, 0, 0, 0};

  void add(F4 a, F4 b) {
    const F4 inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    bad |= ~(a < inf) | ~(b < inf);
    max0 = max0 < a ? a : max0;
    max1 = max1 < b ? b : max1;
  }
  float max() const {
    const F4 m = max0 < max1 ? max1 : max0;
    return std::fmax(std::fmax(m[0], m[1]), std::fmax(m[2], m[3]));
  }
  bool any_bad() const { return (bad[0] | bad[1] | bad[2] | bad[3]) != 0; }
};

// x with the lanes whose bit in `nibble` is clear set to -inf.
inline F4 keep(F4 x, unsigned nibble) {
  const I4 neg_inf = {static_cast<std::int32_t>(0xFF800000u), static_cast<std::int32_t>(0xFF800000u),
                      static_cast<std::int32_t>(0xFF800000u), static_cast<std::int32_t>(0xFF800000u)};
  const I4 k = kNibbleMasks[nibble & 15];
  return reinterpret_cast<F4>((reinterpret_cast<I4>(x) & k) | (neg_inf & ~k));
}

// Adds x[0, n) to `scan`, n a multiple of 8.
inline void scan_all(const float* x, std::size_t n, MaxScan& scan) {
  for (std::size_t i = 0; i < n; i += 8) scan.add(load(x + i), load(x + i + 4));
}

// Adds the 64 logits x[0, 64) to `scan`, those whose bit in m is clear as -inf.
inline void scan_masked(const float* x, std::uint64_t m, MaxScan& scan) {
  for (std::size_t i = 0; i < 64; i += 8, m >>= 8)
    scan.add(keep(load(x + i), static_cast<unsigned>(m)), keep(load(x + i + 4), static_cast<unsigned>(m >> 4)));
}

}  // namespace ogai::sampling::lanes
