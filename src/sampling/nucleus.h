// NucleusCut: where HF's top-p and typical-p filters cut a whole vocabulary, found over dense
// weights (dense_weights.h) by histograms of the weights' bits instead of a sort.
//
// Both filters keep a prefix of the tokens in some order until a mass is reached: top-p in rank
// order (processed logit y descending, ties by lower id), typical-p in ascending typical score.
// A float's bits are monotone in its value, so a histogram of mass by the top bits of each
// token's key (the weight for top-p, the score for typical-p) finds the bucket holding the cut
// in one pass over the row; the next bits split that bucket's tokens (gathered into a short
// list), and the last bits leave tokens of one key, where the rank order only needs the cut's
// position (a selection, std::nth_element, never a sort). Top-p's first pass only adds the weights
// above 2^-20 of the top token's, eight compared at once (tokens further down are far from any
// cut unless the row is flat; a second pass adds them when the cut lies there), into four copies
// of the histogram in turn; typical-p's first level is a quarter octave of the score (bits >> 21).
//
// Semantics, with min_tokens_to_keep 1 (the Sampler uses the candidate path otherwise):
//   top-p: the kept tokens are the shortest rank prefix whose weight reaches top_p * total, as
//     filter_top_p (warpers.h) keeps them; every token when rounding never reaches it. The rank
//     order reads y = x / temperature from the raw row x, so the processed row need not exist.
//   typical-p: H = -sum p log p over the tokens with p > 0; score = |-log p - H|, log p computed
//     as filter_typical_p does; the kept tokens are those whose score is at most the score of the
//     first token (ascending score, then id) where the cumulative p reaches the mass (every token
//     when it never does). Scores are written to `scores` for the draw.
// Tokens of weight 0 are never kept (they would never be drawn). Sums of mass are in double in a
// different order than the candidate path's, so a cut can differ from it only where rounding
// decides (the draw's distribution does not change; tests/sampling/fast_paths_test.cc).
//
// Cost: O(V) (one or two passes over the weights, one to gather the cut bucket) plus O(bucket).
// Memory: reserve(V) allocates the list (top_p()/typical_p() call it); the histograms are members. Not thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling/cut_test.h"
#include "sampling/dense_weights.h"

namespace ogai::sampling {

class NucleusCut {
 public:
  void reserve(std::size_t vocab_size);

  // Top-p over `dense`, the weights of the row `x` / `temperature` (x the raw logits, or the
  // processed ones with temperature 1): fills `kept` (rank_cut, temperature) and returns the
  // total weight it keeps.
  double top_p(const DenseWeights& dense, std::span<const float> x, float temperature, double top_p, KeptSet& kept);
  // Typical-p over `dense` and `y`: writes every token's score into `scores` (size V), fills
  // `kept` (score_cut) and returns the total weight it keeps.
  double typical_p(const DenseWeights& dense, std::span<const float> y, double mass, std::span<float> scores,
                   KeptSet& kept);
  // The same with the score function (entropy) already computed (cut_test.h's typical_score()).
  double typical_p(const DenseWeights& dense, std::span<const float> y, const TypicalScore& f, double mass,
                   std::span<float> scores, KeptSet& kept);

 private:
  static constexpr std::size_t kBuckets = 4096;
  // The bucket (of the histogram) where the cumulative mass, counted from the best bucket down
  // with `before` already above, first reaches `need`; -1 when it never does. Adds the mass
  // above that bucket to `before`.
  std::ptrdiff_t find(double need, double& before) const;
  // Narrows list_ to the tokens whose key >> shift & mask equals the bucket holding the cut;
  // false when the cut is not reached within the list.
  // Lists the ids whose weight lies in [lo, hi), in id order.
  void gather(std::span<const float> w, float lo, float hi);
  template <class Key>
  bool narrow(const Key& key, std::span<const float> w, int shift, std::uint32_t mask, double need, double& before);

  // Top-p's first level: weights <= 1 have keys (bits >> 20) below 1024; four copies.
  static constexpr std::size_t kLevel1 = 1024;
  std::array<std::array<double, kLevel1>, 4> level1_{};
  std::array<double, kBuckets> mass_{};   // mass per bucket of the current level
  std::array<double, kBuckets> mass2_{};  // a second copy, so that runs of one bucket pipeline
  std::vector<std::int32_t> list_;        // [V]; the first listed_ are the ids in the cut's bucket
  std::size_t listed_ = 0;
};

}  // namespace ogai::sampling
