// The pre-histogram sampler, verbatim (see legacy_sampler.h): the warpers (top-p, min-p, typical-p). Compiled with
// -ffp-contract=off like the stage's own files so its exponentials have the same bits.
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
