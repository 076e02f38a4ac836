#include "media/image/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "base/error.h"

namespace ogai::media {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;

struct Filter {
  double (*f)(double);
  double support;
};

double box(double x) { return x > -0.5 && x <= 0.5 ? 1.0 : 0.0; }
double bilinear(double x) {
  if (x < 0.0) x = -x;
  return x < 1.0 ? 1.0 - x : 0.0;
}
double hamming(double x) {
  if (x < 0.0) x = -x;
  if (x == 0.0) return 1.0;
  if (x >= 1.0) return 0.0;
  x = x * M_PI;
  return std::sin(x) / x * (0.54 + 0.46 * std::cos(x));
}
double bicubic(double x) {
  constexpr double a = -0.5;
  if (x < 0.0) x = -x;
  if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
  if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
  return 0.0;
}
double sinc(double x) {
  if (x == 0.0) return 1.0;
  x = x * M_PI;
  return std::sin(x) / x;
}
double lanczos(double x) { return -3.0 <= x && x < 3.0 ? sinc(x) * sinc(x / 3) : 0.0; }

Filter filter_of(ResizeFilter f) {
  switch (f) {
    case ResizeFilter::kBox: return {box, 0.5};
    case ResizeFilter::kBilinear: return {bilinear, 1.0};
    case ResizeFilter::kHamming: return {hamming, 1.0};
    case ResizeFilter::kBicubic: return {bicubic, 2.0};
    case ResizeFilter::kLanczos: return {lanczos, 3.0};
    case ResizeFilter::kNearest: break;
  }
  fail(ErrorCode::kInternal, "media::resize", "nearest has no convolution filter");
}

// One axis: for each output index its first source index, its count and its fixed-point weights
// (ksize per output, zero-padded).
struct Coefficients {
  int ksize = 0;
  int taps = 0;  // the largest count (<= ksize): the weights past a count up to it are zero
  std::vector<int> first, count;
  std::vector<std::int32_t> weights;
};

Coefficients precompute(int in_size, int out_size, const Filter& filter) {
  const float in0 = 0.0f, in1 = static_cast<float>(in_size);
  const double scale = static_cast<double>(in1 - in0) / out_size;
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = filter.support * filterscale;
  Coefficients c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.first.resize(static_cast<std::size_t>(out_size));
  c.count.resize(static_cast<std::size_t>(out_size));
  c.weights.assign(static_cast<std::size_t>(out_size) * c.ksize, 0);
  std::vector<double> k(static_cast<std::size_t>(c.ksize));
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = in0 + (xx + 0.5) * scale;
    const double ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double ww = 0.0;
    for (int x = 0; x < xmax; ++x) {
      const double w = filter.f((x + xmin - center + 0.5) * ss);
      k[static_cast<std::size_t>(x)] = w;
      ww += w;
    }
    std::int32_t* out = &c.weights[static_cast<std::size_t>(xx) * c.ksize];
    for (int x = 0; x < xmax; ++x) {
      double v = k[static_cast<std::size_t>(x)];
      if (ww != 0.0) v /= ww;
      out[x] = v < 0 ? static_cast<std::int32_t>(-0.5 + v * (1 << kPrecisionBits))
                     : static_cast<std::int32_t>(0.5 + v * (1 << kPrecisionBits));
    }
    c.first[static_cast<std::size_t>(xx)] = xmin;
    c.count[static_cast<std::size_t>(xx)] = xmax;
    c.taps = std::max(c.taps, xmax);
  }
  return c;
}

inline std::uint8_t clip8(std::int32_t v) {
  const std::int32_t s = v >> kPrecisionBits;
  return static_cast<std::uint8_t>(s < 0 ? 0 : s > 255 ? 255 : s);
}

// Rows [y0, y0 + out.height) of `in` resampled along x into `out`. CH channels (0: any count).
template <std::uint32_t CH>
void horizontal_rows(const Raster& in, std::uint32_t y0, const Coefficients& c, Raster& out) {
  const std::uint32_t ch = CH ? CH : in.channels;
  for (std::uint32_t y = 0; y < out.height; ++y) {
    const std::uint8_t* src = in.row(y0 + y);
    std::uint8_t* dst = out.row(y);
    for (std::uint32_t xx = 0; xx < out.width; ++xx) {
      const int n = c.count[xx];
      const std::int32_t* k = &c.weights[static_cast<std::size_t>(xx) * c.ksize];
      const std::uint8_t* p = src + static_cast<std::size_t>(c.first[xx]) * ch;
      if constexpr (CH == 3) {
        std::int32_t s0 = 1 << (kPrecisionBits - 1), s1 = s0, s2 = s0;
        for (int x = 0; x < n; ++x, p += 3) {
          s0 += p[0] * k[x];
          s1 += p[1] * k[x];
          s2 += p[2] * k[x];
        }
        dst[xx * 3] = clip8(s0), dst[xx * 3 + 1] = clip8(s1), dst[xx * 3 + 2] = clip8(s2);
      } else {
        for (std::uint32_t b = 0; b < ch; ++b) {
          std::int32_t ss = 1 << (kPrecisionBits - 1);
          for (int x = 0; x < n; ++x) ss += p[static_cast<std::size_t>(x) * ch + b] * k[x];
          dst[xx * ch + b] = clip8(ss);
        }
      }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The scalar sums of one RGB output pixel (the outputs near the row's end, whose 4-byte loads
// below would read past the raster).
inline void rgb_pixel_scalar(const std::uint8_t* p, const std::int32_t* k, int n, std::uint8_t* dst) {
  std::int32_t s0 = 1 << (kPrecisionBits - 1), s1 = s0, s2 = s0;
  for (int x = 0; x < n; ++x, p += 3) s0 += p[0] * k[x], s1 += p[1] * k[x], s2 += p[2] * k[x];
  dst[0] = clip8(s0), dst[1] = clip8(s1), dst[2] = clip8(s2);
}

// Two RGB outputs from their fixed-point sums (lanes 0-2 and 4-6 of `sum`): clip8 of each, shifted,
// then saturated to int16 and to 0..255 (the same bytes as the scalar clip), six bytes at `d`.
__attribute__((target("avx2"))) inline void store_two_rgb(__m256i sum, std::uint8_t* d) {
  const __m128i rgb_pairs = _mm_setr_epi8(0, 1, 2, 4, 5, 6, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i shifted = _mm256_srai_epi32(sum, kPrecisionBits);
  const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(shifted), _mm256_extracti128_si256(shifted, 1));
  const __m128i bytes = _mm_shuffle_epi8(_mm_packus_epi16(words, words), rgb_pairs);
  const auto six = static_cast<std::uint64_t>(_mm_cvtsi128_si64(bytes));
  const auto four = static_cast<std::uint32_t>(six);
  const auto two = static_cast<std::uint16_t>(six >> 32);
  std::memcpy(d, &four, 4);
  std::memcpy(d + 4, &two, 2);
}

// horizontal_rows<3> with a pixel's three channels in 32-bit lanes: each tap loads the pixel's 4
// bytes (RGB and the next sample, whose lane is dropped), widens them and adds them times the
// weight: the same 32-bit integer sums as the scalar loop, so the same bytes. Every output runs
// the axis' largest count of taps (the weights past its own count are zero, adding nothing), so
// the loop's trip count never varies and its branch is predicted. Outputs whose taps reach the row's last pixel
// take the scalar loop. AVX2: two outputs per register (lanes 0-3 and 4-7); SSE4.1: one.
__attribute__((target("avx2"))) void horizontal_rgb_avx2(const Raster& in, std::uint32_t y0, const Coefficients& c,
                                                         Raster& out) {
  const int ksize = c.ksize, taps = c.taps, width = static_cast<int>(out.width);
  // Outputs [0, safe) have first + taps < in.width (first never decreases with the output index).
  int safe = 0;
  while (safe < width && c.first[static_cast<std::size_t>(safe)] + taps < static_cast<int>(in.width)) ++safe;
  // Per pair of outputs and tap: 8 lanes, the first output's weight in 0-3, the second's in 4-7.
  std::vector<std::int32_t> pair_weights(static_cast<std::size_t>(safe / 2) * taps * 8);
  for (int pair = 0; pair < safe / 2; ++pair)
    for (int x = 0; x < taps; ++x)
      for (int lane = 0; lane < 8; ++lane)
        pair_weights[(static_cast<std::size_t>(pair) * taps + x) * 8 + lane] =
            c.weights[static_cast<std::size_t>(pair * 2 + lane / 4) * ksize + x];
  const __m256i half = _mm256_set1_epi32(1 << (kPrecisionBits - 1));
  for (std::uint32_t y = 0; y < out.height; ++y) {
    const std::uint8_t* src = in.row(y0 + y);
    std::uint8_t* dst = out.row(y);
    int xx = 0;
    for (; xx + 1 < safe; xx += 2) {
      const std::uint8_t* pa = src + static_cast<std::size_t>(c.first[static_cast<std::size_t>(xx)]) * 3;
      const std::uint8_t* pb = src + static_cast<std::size_t>(c.first[static_cast<std::size_t>(xx) + 1]) * 3;
      const std::int32_t* k = &pair_weights[static_cast<std::size_t>(xx / 2) * taps * 8];
      __m256i sum = half;
      for (int x = 0; x < taps; ++x, pa += 3, pb += 3, k += 8) {
        std::int32_t a, b;
        std::memcpy(&a, pa, 4);
        std::memcpy(&b, pb, 4);
        const __m256i px = _mm256_cvtepu8_epi32(_mm_insert_epi32(_mm_cvtsi32_si128(a), b, 1));
        sum = _mm256_add_epi32(sum, _mm256_mullo_epi32(px, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(k))));
      }
      store_two_rgb(sum, dst + static_cast<std::size_t>(xx) * 3);
    }
    for (; xx < width; ++xx)
      rgb_pixel_scalar(src + static_cast<std::size_t>(c.first[static_cast<std::size_t>(xx)]) * 3,
                       &c.weights[static_cast<std::size_t>(xx) * ksize], c.count[static_cast<std::size_t>(xx)],
                       dst + static_cast<std::size_t>(xx) * 3);
  }
}

// horizontal_rgb_avx2 for axes of at most 5 taps with 16-bit multiplies: each weight k is split
// as k = hi * 2048 + lo (lo in 0..2047, hi = k >> 11, checked to fit 16 bits), so that
// sum(p * k) = sum(p * hi) * 2048 + sum(p * lo) in 32-bit wrapping arithmetic, the scalar loop's
// sum exactly. Each output's 16 bytes from its first pixel (5 pixels) are loaded once, two outputs
// per register (one per 128-bit lane); per pair of taps a byte shuffle makes the 16-bit
// [R x, R x+1, G x, G x+1, B x, B x+1, 0, 0] and pmaddwd multiplies and adds the pair. False (nothing
// written) when a weight's high part does not fit 16 bits.
__attribute__((target("avx2"))) bool horizontal_rgb_madd_avx2(const Raster& in, std::uint32_t y0,
                                                              const Coefficients& c, Raster& out) {
  constexpr int kPairs = 3;  // taps 0-5; tap 5's weight is zero when taps <= 5
  const int ksize = c.ksize, taps = c.taps, width = static_cast<int>(out.width);
  if (taps > 5) return false;
  const int row = static_cast<int>(in.row_bytes());
  int safe = 0;  // outputs [0, safe) can load 16 bytes from their first pixel
  while (safe < width && c.first[static_cast<std::size_t>(safe)] * 3 + 16 <= row) ++safe;
  // Per pair of outputs and pair of taps: 16 high parts, then 16 low parts (lane 0: first output).
  std::vector<std::int16_t> split(static_cast<std::size_t>(safe / 2) * kPairs * 32, 0);
  for (int pair = 0; pair < safe / 2; ++pair)
    for (int j = 0; j < kPairs; ++j)
      for (int lane = 0; lane < 2; ++lane)
        for (int t = 0; t < 2; ++t) {
          const int x = 2 * j + t, o = pair * 2 + lane;
          const std::int32_t k = x < taps ? c.weights[static_cast<std::size_t>(o) * ksize + x] : 0;
          const std::int32_t hi = k >> 11, lo = k & 2047;
          if (hi < INT16_MIN || hi > INT16_MAX) return false;
          std::int16_t* w = &split[(static_cast<std::size_t>(pair) * kPairs + j) * 32];
          for (int ch = 0; ch < 3; ++ch) {
            w[lane * 8 + ch * 2 + t] = static_cast<std::int16_t>(hi);
            w[16 + lane * 8 + ch * 2 + t] = static_cast<std::int16_t>(lo);
          }
        }
  __m256i shuffle[kPairs];
  for (int j = 0; j < kPairs; ++j) {
    alignas(16) std::int8_t m[16];
    for (int ch = 0; ch < 3; ++ch)
      for (int t = 0; t < 2; ++t) {
        const int byte = 3 * (2 * j + t) + ch;
        m[ch * 4 + t * 2] = static_cast<std::int8_t>(byte < 16 ? byte : -1);
        m[ch * 4 + t * 2 + 1] = -1;
      }
    for (int i = 12; i < 16; ++i) m[i] = -1;
    const __m128i lane = _mm_load_si128(reinterpret_cast<const __m128i*>(m));
    shuffle[j] = _mm256_set_m128i(lane, lane);
  }
  const __m256i half = _mm256_set1_epi32(1 << (kPrecisionBits - 1));
  for (std::uint32_t y = 0; y < out.height; ++y) {
    const std::uint8_t* src = in.row(y0 + y);
    std::uint8_t* dst = out.row(y);
    int xx = 0;
    for (; xx + 1 < safe; xx += 2) {
      const std::uint8_t* pa = src + static_cast<std::size_t>(c.first[static_cast<std::size_t>(xx)]) * 3;
      const std::uint8_t* pb = src + static_cast<std::size_t>(c.first[static_cast<std::size_t>(xx) + 1]) * 3;
      const __m256i bytes = _mm256_set_m128i(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pb)),
                                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(pa)));
      const std::int16_t* w = &split[static_cast<std::size_t>(xx / 2) * kPairs * 32];
      __m256i sum_hi = _mm256_setzero_si256(), sum_lo = half;
      for (int j = 0; j < kPairs; ++j, w += 32) {
        const __m256i d = _mm256_shuffle_epi8(bytes, shuffle[j]);
        sum_hi = _mm256_add_epi32(sum_hi, _mm256_madd_epi16(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w))));
        sum_lo = _mm256_add_epi32(sum_lo,
                                  _mm256_madd_epi16(d, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 16))));
      }
      const __m256i sum = _mm256_add_epi32(sum_lo, _mm256_slli_epi32(sum_hi, 11));
      store_two_rgb(sum, dst + static_cast<std::size_t>(xx) * 3);
    }
    for (; xx < width; ++xx)
      rgb_pixel_scalar(src + static_cast<std::size_t>(c.first[static_cast<std::size_t>(xx)]) * 3,
                       &c.weights[static_cast<std::size_t>(xx) * ksize], c.count[static_cast<std::size_t>(xx)],
                       dst + static_cast<std::size_t>(xx) * 3);
  }
  return true;
}

__attribute__((target("sse4.1"))) void horizontal_rgb_sse41(const Raster& in, std::uint32_t y0, const Coefficients& c,
                                                             Raster& out) {
  const int ksize = c.ksize, taps = c.taps;
  const __m128i half = _mm_set1_epi32(1 << (kPrecisionBits - 1));
  for (std::uint32_t y = 0; y < out.height; ++y) {
    const std::uint8_t* src = in.row(y0 + y);
    std::uint8_t* dst = out.row(y);
    for (std::uint32_t xx = 0; xx < out.width; ++xx) {
      const int first = c.first[xx];
      const std::int32_t* k = &c.weights[static_cast<std::size_t>(xx) * ksize];
      const std::uint8_t* p = src + static_cast<std::size_t>(first) * 3;
      if (first + taps >= static_cast<int>(in.width)) {
        rgb_pixel_scalar(p, k, c.count[xx], dst + static_cast<std::size_t>(xx) * 3);
        continue;
      }
      __m128i sum = half;
      for (int x = 0; x < taps; ++x, p += 3) {
        std::int32_t four;
        std::memcpy(&four, p, 4);
        const __m128i px = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(four));
        sum = _mm_add_epi32(sum, _mm_mullo_epi32(px, _mm_set1_epi32(k[x])));
      }
      alignas(16) std::int32_t s[4];
      _mm_store_si128(reinterpret_cast<__m128i*>(s), sum);
      dst[xx * 3] = clip8(s[0]), dst[xx * 3 + 1] = clip8(s[1]), dst[xx * 3 + 2] = clip8(s[2]);
    }
  }
}
#endif

void horizontal(const Raster& in, std::uint32_t y0, const Coefficients& c, Raster& out) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2"), sse41 = __builtin_cpu_supports("sse4.1");
  if (in.channels == 3 && avx2 && horizontal_rgb_madd_avx2(in, y0, c, out)) return;
  if (in.channels == 3 && avx2) return horizontal_rgb_avx2(in, y0, c, out);
  if (in.channels == 3 && sse41) return horizontal_rgb_sse41(in, y0, c, out);
#endif
  if (in.channels == 3) horizontal_rows<3>(in, y0, c, out);
  else horizontal_rows<0>(in, y0, c, out);
}

// `in`'s rows resampled along y into `out`; `y0` is the source row of in's first row. Each output
// row sums its source rows weighted into a row of accumulators (the same integer sums as Pillow's
// per-sample loop, in an order the compiler vectorises; on x86-64 with GCC also compiled for AVX2,
// whose 32-bit multiplies SSE2 lacks, the loader picking the clone the CPU runs).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
__attribute__((target_clones("avx2", "default")))
#endif
void vertical_rows(const Raster& in, int y0, const Coefficients& c, Raster& out) {
  const std::size_t row = in.row_bytes();
  std::vector<std::int32_t> acc(row);
  for (std::uint32_t yy = 0; yy < out.height; ++yy) {
    const int first = c.first[yy] - y0, n = c.count[yy];
    const std::int32_t* k = &c.weights[static_cast<std::size_t>(yy) * c.ksize];
    std::fill(acc.begin(), acc.end(), 1 << (kPrecisionBits - 1));
    for (int y = 0; y < n; ++y) {
      const std::uint8_t* src = in.row(static_cast<std::uint32_t>(first + y));
      const std::int32_t w = k[y];
      std::int32_t* a = acc.data();
      for (std::size_t i = 0; i < row; ++i) a[i] += src[i] * w;
    }
    std::uint8_t* dst = out.row(yy);
    for (std::size_t i = 0; i < row; ++i) dst[i] = clip8(acc[i]);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// vertical_rows with each 16 columns' sums held in two AVX2 registers across the output row's
// source rows (no accumulator row to load and store per source row), clipped by shift and
// saturating packs: the same 32-bit integer sums, so the same bytes. The row's last columns (under
// 16) take the scalar loop.
__attribute__((target("avx2"))) void vertical_avx2(const Raster& in, int y0, const Coefficients& c, Raster& out) {
  const std::size_t row = in.row_bytes();
  const __m256i half = _mm256_set1_epi32(1 << (kPrecisionBits - 1));
  std::vector<const std::uint8_t*> src(static_cast<std::size_t>(c.ksize));
  for (std::uint32_t yy = 0; yy < out.height; ++yy) {
    const int first = c.first[yy] - y0, n = c.count[yy];
    const std::int32_t* k = &c.weights[static_cast<std::size_t>(yy) * c.ksize];
    for (int y = 0; y < n; ++y) src[static_cast<std::size_t>(y)] = in.row(static_cast<std::uint32_t>(first + y));
    std::uint8_t* dst = out.row(yy);
    std::size_t i = 0;
    for (; i + 16 <= row; i += 16) {
      __m256i lo = half, hi = half;
      for (int y = 0; y < n; ++y) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src[static_cast<std::size_t>(y)] + i));
        const __m256i w = _mm256_set1_epi32(k[y]);
        lo = _mm256_add_epi32(lo, _mm256_mullo_epi32(_mm256_cvtepu8_epi32(v), w));
        hi = _mm256_add_epi32(hi, _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_srli_si128(v, 8)), w));
      }
      lo = _mm256_srai_epi32(lo, kPrecisionBits);
      hi = _mm256_srai_epi32(hi, kPrecisionBits);
      const __m128i words_lo = _mm_packs_epi32(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1));
      const __m128i words_hi = _mm_packs_epi32(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), _mm_packus_epi16(words_lo, words_hi));
    }
    for (; i < row; ++i) {
      std::int32_t sum = 1 << (kPrecisionBits - 1);
      for (int y = 0; y < n; ++y) sum += src[static_cast<std::size_t>(y)][i] * k[y];
      dst[i] = clip8(sum);
    }
  }
}
#endif

void vertical(const Raster& in, int y0, const Coefficients& c, Raster& out) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return vertical_avx2(in, y0, c, out);
#endif
  vertical_rows(in, y0, c, out);
}

Raster nearest(const Raster& in, std::uint32_t width, std::uint32_t height) {
  Raster out = make_raster(width, height, in.channels);
  const double ax = static_cast<double>(static_cast<float>(in.width) - 0.0f) / width;
  const double ay = static_cast<double>(static_cast<float>(in.height) - 0.0f) / height;
  auto coord = [](double v) { return v < 0.0 ? -1 : static_cast<int>(v); };
  std::vector<int> xin(width, -1);
  double xo = 0.0 + ax * 0.5;
  for (std::uint32_t x = 0; x < width; ++x, xo += ax) {
    const int xi = coord(xo);
    if (xi >= 0 && xi < static_cast<int>(in.width)) xin[x] = xi;
  }
  const std::uint32_t ch = in.channels;
  double yo = 0.0 + ay * 0.5;
  for (std::uint32_t y = 0; y < height; ++y, yo += ay) {
    const int yi = coord(yo);
    if (yi < 0 || yi >= static_cast<int>(in.height)) continue;  // stays 0, as Pillow's fill
    const std::uint8_t* src = in.row(static_cast<std::uint32_t>(yi));
    std::uint8_t* dst = out.row(y);
    for (std::uint32_t x = 0; x < width; ++x)
      if (xin[x] >= 0)
        for (std::uint32_t b = 0; b < ch; ++b) dst[x * ch + b] = src[static_cast<std::size_t>(xin[x]) * ch + b];
  }
  return out;
}

}  // namespace

std::optional<ResizeFilter> parse_resize_filter(std::string_view name) {
  if (name == "nearest") return ResizeFilter::kNearest;
  if (name == "box") return ResizeFilter::kBox;
  if (name == "bilinear") return ResizeFilter::kBilinear;
  if (name == "hamming") return ResizeFilter::kHamming;
  if (name == "bicubic") return ResizeFilter::kBicubic;
  if (name == "lanczos" || name == "lanczos3") return ResizeFilter::kLanczos;
  return std::nullopt;
}

Raster resize(const Raster& in, std::uint32_t width, std::uint32_t height, ResizeFilter filter) {
  if (width == 0 || height == 0 || in.width == 0 || in.height == 0)
    fail(ErrorCode::kInvalidArgument, "media::resize", "cannot resize {}x{} to {}x{}", in.width, in.height, width,
         height);
  if (width == in.width && height == in.height) return in;
  if (filter == ResizeFilter::kNearest) return nearest(in, width, height);
  const Filter f = filter_of(filter);
  const bool need_h = width != in.width, need_v = height != in.height;
  const Coefficients ch = precompute(static_cast<int>(in.width), static_cast<int>(width), f);
  const Coefficients cv = precompute(static_cast<int>(in.height), static_cast<int>(height), f);
  // Only the source rows the vertical pass reads go through the horizontal pass.
  const int y_first = cv.first[0];
  const int y_last = cv.first[height - 1] + cv.count[height - 1];
  if (!need_h) {
    Raster out = make_raster(width, height, in.channels);
    vertical(in, 0, cv, out);
    return out;
  }
  Raster tmp = make_raster(width, static_cast<std::uint32_t>(y_last - y_first), in.channels);
  horizontal(in, static_cast<std::uint32_t>(y_first), ch, tmp);
  if (!need_v) return tmp;
  Raster out = make_raster(width, height, in.channels);
  vertical(tmp, y_first, cv, out);
  return out;
}

}  // namespace ogai::media
