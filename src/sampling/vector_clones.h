// OGAI_VECTOR_CLONES: compiles the function it marks twice on x86-64, for the baseline ISA (SSE2)
// and for AVX2, and lets the dynamic loader pick the one the CPU runs (GCC/Clang target_clones,
// an ifunc resolved once at load; GCC only: clang leaves the clones of a multi-file ifunc
// unresolved at link time, so its builds (the fuzzers) use the baseline). The sampling stage's streaming passes over a row of logits
// (exponentials, masked sums, histograms) are compute-bound at 4 lanes and about twice as fast at
// 8; the inline helpers they call (exp_nonpositive, the block kernels) are compiled into each
// clone. AVX2 without FMA: the files are compiled with -ffp-contract=off, so both clones round
// every operation the same way and give the same bits. Elsewhere (other CPUs or compilers, or
// OGAI_NO_VECTOR_CLONES defined) it expands to nothing and the compiler's own target is used.
// lanes::in_range8 tests 8 floats at once.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && !defined(OGAI_NO_VECTOR_CLONES)
#define OGAI_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define OGAI_VECTOR_CLONES
#endif

#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace ogai::sampling::lanes {

// Bit j set when x[j] lies in [lo, hi), for j < 8: two four-lane compares and movemasks (SSE,
// which every x86-64 CPU has; VEX-encoded in the AVX2 clone), a scalar loop elsewhere.
inline unsigned in_range8(const float* x, float lo, float hi) {
#if defined(__SSE2__)
  const __m128 l = _mm_set1_ps(lo), h = _mm_set1_ps(hi);
  const __m128 a = _mm_loadu_ps(x), b = _mm_loadu_ps(x + 4);
  const int ma = _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(a, l), _mm_cmplt_ps(a, h)));
  const int mb = _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(b, l), _mm_cmplt_ps(b, h)));
  return static_cast<unsigned>(ma | (mb << 4));
#else
  unsigned m = 0;
  for (unsigned j = 0; j < 8; ++j) m |= static_cast<unsigned>(x[j] >= lo && x[j] < hi) << j;
  return m;
#endif
}

}  // namespace ogai::sampling::lanes
