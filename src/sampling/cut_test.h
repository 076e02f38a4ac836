// CutTest: whether one drawn token survives HF's top-p or typical-p cut, decided by one masked
// pass over the dense weights (dense_weights.h) instead of finding the cut for the whole row.
//
// Both filters keep a prefix of the tokens in some order until a mass is reached, so a token is
// kept iff the mass strictly before it in that order is below the mass the filter needs:
//   top-p: order = rank (y = x / temperature descending, ties by the lower id); kept iff the weight
//     ranked strictly above the token is < top_p * total (the tokens NucleusCut::top_p keeps);
//   typical-p: order = ascending score (then id), the cut keeping every token whose score is at
//     most the cut token's; kept iff the weight of the tokens whose score is strictly lower is
//     < typical_p * total (the tokens NucleusCut::typical_p keeps).
// The Sampler draws a token from all weights and keeps it when the test passes (rejection: the
// accepted draws follow the kept tokens' distribution exactly); a pass costs one read of the
// weights (and of the row for ties or scores), against the histograms' several. Sums are in
// double, 8 lanes per block of 64 in id order, blocks in id order: a different order than the
// histograms', so the two can disagree only where rounding decides a cut.
//
// Pure functions of their arguments; thread-safe. Nothing allocates.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "sampling/dense_weights.h"

namespace ogai::sampling {

// HF's typical score of one token: |-log p - H|, log p as filter_typical_p computes it
// (float(double(y - max) - log total)), H the entropy as NucleusCut computes it.
struct TypicalScore {
  float max = 0.0f;         // max y
  double log_total = 0.0;   // log of the sum of the weights
  float entropy = 0.0f;     // H
  float operator()(float y) const {
    const float log_p = static_cast<float>(static_cast<double>(y - max) - log_total);
    return std::fabs(-log_p - entropy);
  }
};

// The entropy H = -sum p log p over the weights (p = w / total, tokens of weight 0 skipped) and
// the processed row y; with the score function built from it. When `dense` computed its logit
// moment, H = log total - moment / total without a pass (equal to the pass's H up to the float
// rounding of each log p); otherwise one pass, log p rounded to float as filter_typical_p does.
TypicalScore typical_score(const DenseWeights& dense, std::span<const float> y);

// The weight ranked strictly above `id` (rank order: y = x / temperature descending, then id),
// over the dense weights of the row x. With the dense weights' block maxima kept, blocks whose
// largest weight is below the token's are passed over (a drawn head token reads little more).
double weight_ranked_above(const DenseWeights& dense, std::int64_t id, std::span<const float> x, float temperature);

// The weight of the tokens whose typical score is strictly below `score`, over the dense weights
// of the processed row y.
double weight_scored_below(const DenseWeights& dense, float score, std::span<const float> y, const TypicalScore& f);

}  // namespace ogai::sampling
