#include "sampling/nucleus.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "base/error.h"
#include "sampling/cut_test.h"
#include "sampling/lanes.h"
#include "sampling/vector_clones.h"

namespace ogai::sampling {
namespace {

inline std::uint32_t bits_of(float v) {
  std::uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline float float_of(std::uint32_t b) {
  float v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Top-p's first pass adds the weights at least 2^-20 (of the top token's 1).
constexpr std::uint32_t kHighBits = (127u - 20u) << 23;

// Level 1 keys are the top 12 bits, level 2 the next 12, level 3 the last 8.
constexpr int kShift1 = 20, kShift2 = 8;
constexpr std::uint32_t kMask12 = 0xFFF, kMask8 = 0xFF;

// Rank order of top-p: higher y = x / temperature first, then lower id.
struct RanksBefore {
  const float* x;
  float temperature;
  bool operator()(std::int32_t a, std::int32_t b) const {
    const float ya = x[a] / temperature, yb = x[b] / temperature;
    return ya > yb || (ya == yb && a < b);
  }
};

}  // namespace

void NucleusCut::reserve(std::size_t vocab_size) {
  if (list_.size() < vocab_size) list_.resize(vocab_size);
}

std::ptrdiff_t NucleusCut::find(double need, double& before) const {
  std::ptrdiff_t last = -1;  // the lowest bucket with mass, for a target rounding leaves unreached
  double above_last = before;
  for (std::ptrdiff_t b = kBuckets; b-- > 0;) {
    const double m = mass_[static_cast<std::size_t>(b)] + mass2_[static_cast<std::size_t>(b)];
    if (m == 0.0) continue;
    if (before + m >= need) return b;
    last = b;
    above_last = before;
    before += m;
  }
  before = above_last;
  return last;
}

[[gnu::always_inline]] inline void NucleusCut::gather(std::span<const float> w, float lo, float hi) {
  std::int32_t* list = list_.data();
  std::size_t n = 0, i = 0;
  const std::size_t v = w.size();
  for (; i + 8 <= v; i += 8) {
    const unsigned m = lanes::in_range8(w.data() + i, lo, hi);
    if (m == 0xFF) {
      for (std::size_t j = 0; j < 8; ++j) list[n + j] = static_cast<std::int32_t>(i + j);
      n += 8;
      continue;
    }
    for (unsigned bits = m; bits != 0; bits &= bits - 1)
      list[n++] = static_cast<std::int32_t>(i + static_cast<std::size_t>(std::countr_zero(bits)));
  }
  for (; i < v; ++i) {
    list[n] = static_cast<std::int32_t>(i);
    n += w[i] >= lo && w[i] < hi;
  }
  listed_ = n;
}

template <class Key>
bool NucleusCut::narrow(const Key& key, std::span<const float> w, int shift, std::uint32_t mask, double need,
                        double& before) {
  mass_.fill(0.0);
  mass2_.fill(0.0);
  std::int32_t* list = list_.data();
  for (std::size_t i = 0; i < listed_; ++i) mass_[(key(list[i]) >> shift) & mask] += w[static_cast<std::size_t>(list[i])];
  const std::ptrdiff_t b = find(need, before);
  if (b < 0) return false;
  const auto bucket = static_cast<std::uint32_t>(b);
  std::size_t n = 0;
  for (std::size_t i = 0; i < listed_; ++i) {
    const std::int32_t id = list[i];
    list[n] = id;
    n += ((key(id) >> shift) & mask) == bucket;
  }
  listed_ = n;
  return true;
}

OGAI_VECTOR_CLONES double NucleusCut::top_p(const DenseWeights& dense, std::span<const float> x, float temperature,
                                            double top_p, KeptSet& kept) {
  std::span<const float> w = dense.weights();
  const std::size_t v = w.size();
  const double total = dense.total();
  const double need = top_p * total;
  kept.rank_cut = false;
  kept.temperature = temperature;
  // Pass 1: the weights of the tokens near the top (most of a trained model's row is skipped
  // eight at a time); four histogram copies take ids in turn, so that runs of one bucket overlap.
  for (auto& copy : level1_) copy.fill(0.0);
  const float high = float_of(kHighBits);
  std::size_t i = 0;
  for (; i + 8 <= v; i += 8) {
    const unsigned m = lanes::in_range8(w.data() + i, high, INFINITY);
    if (m == 0xFF) {  // a flat stretch: all eight, unrolled
      for (std::size_t j = 0; j < 8; ++j) level1_[j & 3][bits_of(w[i + j]) >> kShift1] += w[i + j];
      continue;
    }
    for (unsigned bits = m; bits != 0; bits &= bits - 1) {
      const std::size_t j = static_cast<std::size_t>(std::countr_zero(bits));
      level1_[j & 3][bits_of(w[i + j]) >> kShift1] += w[i + j];
    }
  }
  for (; i < v; ++i)
    if (w[i] >= high) level1_[0][bits_of(w[i]) >> kShift1] += w[i];
  mass_.fill(0.0);
  mass2_.fill(0.0);
  for (std::size_t k = 0; k < kLevel1; ++k) mass_[k] = (level1_[0][k] + level1_[1][k]) + (level1_[2][k] + level1_[3][k]);
  double before = 0.0;
  std::ptrdiff_t b = find(need, before);
  const double high_mass = before + (b >= 0 ? mass_[static_cast<std::size_t>(b)] + mass2_[static_cast<std::size_t>(b)] : 0);
  if (b < 0 || high_mass < need) {
    // Pass 2 (a flat row): the cut lies among the weights below 2^-20; add those.
    before = b < 0 ? 0.0 : high_mass;
    mass_.fill(0.0);
    mass2_.fill(0.0);
    for (std::size_t j = 0; j < v; ++j)
      if (w[j] > 0.0f && w[j] < high) mass_[bits_of(w[j]) >> kShift1] += w[j];
    b = find(need, before);
    if (b < 0) return total;  // nothing has weight below: every token stays
  }
  // The cut's bucket, gathered.
  const float lo = float_of(static_cast<std::uint32_t>(b) << kShift1);
  const float hi = float_of((static_cast<std::uint32_t>(b) + 1) << kShift1);
  reserve(v);
  gather(w, b == 0 ? std::nextafter(0.0f, 1.0f) : lo, hi);  // weight 0 never listed
  auto key = [&](std::int32_t id) { return bits_of(w[static_cast<std::size_t>(id)]); };
  if (!narrow(key, w, kShift2, kMask12, need, before) || !narrow(key, w, 0, kMask8, need, before)) return total;
  // One weight left: the cut is the j-th of these tokens in rank order.
  const float weight = w[static_cast<std::size_t>(list_.front())];
  double mass = before;
  std::size_t j = 0;
  while (j < listed_) {
    mass += weight;
    ++j;
    if (mass >= need) break;
  }
  std::nth_element(list_.begin(), list_.begin() + static_cast<std::ptrdiff_t>(j - 1),
                   list_.begin() + static_cast<std::ptrdiff_t>(listed_), RanksBefore{x.data(), temperature});
  const std::int32_t cut = list_[j - 1];
  kept.rank_cut = true;
  kept.cut_w = weight;
  kept.cut_y = x[static_cast<std::size_t>(cut)] / temperature;
  kept.cut_id = cut;
  return mass;
}

double NucleusCut::typical_p(const DenseWeights& dense, std::span<const float> y, double mass,
                             std::span<float> scores, KeptSet& kept) {
  return typical_p(dense, y, typical_score(dense, y), mass, scores, kept);
}

OGAI_VECTOR_CLONES double NucleusCut::typical_p(const DenseWeights& dense, std::span<const float> y,
                                                const TypicalScore& f, double mass, std::span<float> scores,
                                                KeptSet& kept) {
  std::span<const float> w = dense.weights();
  const std::size_t v = w.size();
  OGAI_CHECK(scores.size() >= v && y.size() == v);
  const double total = dense.total();
  kept.score_cut = false;
  for (std::size_t j = 0; j < v; ++j) scores[j] = f(y[j]);
  // Level 1: the score's top bits (bits >> 21: a quarter octave, below 1024 for scores <= inf),
  // better (lower) scores in higher buckets; weight 0 adds nothing. Four copies in turn.
  for (auto& copy : level1_) copy.fill(0.0);
  for (std::size_t j = 0; j < v; ++j) level1_[j & 3][kLevel1 - 1 - (bits_of(scores[j]) >> 21)] += w[j];
  mass_.fill(0.0);
  mass2_.fill(0.0);
  for (std::size_t k = 0; k < kLevel1; ++k) mass_[k] = (level1_[0][k] + level1_[1][k]) + (level1_[2][k] + level1_[3][k]);
  const double need = mass * total;
  double before = 0.0;
  const std::ptrdiff_t b = find(need, before);
  if (b < 0) return total;
  const auto top = static_cast<std::uint32_t>(kLevel1 - 1 - static_cast<std::size_t>(b));  // score bits >> 21
  reserve(v);
  gather(scores, float_of(top << 21), top >= 1020 ? INFINITY : float_of((top + 1) << 21));
  // Then the next 12 bits and the last 9 of the inverted score (better = larger key).
  auto key = [&](std::int32_t id) { return ~bits_of(scores[static_cast<std::size_t>(id)]); };
  if (!narrow(key, w, 9, kMask12, need, before) || !narrow(key, w, 0, 0x1FF, need, before)) return total;
  // One score left: every token of it stays (ties at the cut's score are kept, as HF keeps them).
  double kept_mass = before;
  for (std::size_t i = 0; i < listed_; ++i) kept_mass += w[static_cast<std::size_t>(list_[i])];
  kept.score_cut = true;
  kept.max_score = scores[static_cast<std::size_t>(list_.front())];
  return kept_mass;
}

}  // namespace ogai::sampling
