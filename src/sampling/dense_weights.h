// DenseWeights: exp(logit - max) over the whole vocabulary in one dense array, for the chains
// that need no candidate list (no top-k, top-p or typical-p: draw() walks the weights directly)
// and for top-p without top-k (gather_top_p() in warpers.h reads them to find a small superset of
// the nucleus instead of sorting V entries). About 4x less memory traffic than a candidate list.
//
// The walk is in id order, the canonical order Candidates also uses for draws.
// Memory: reserve(V) allocates once; nothing else allocates. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampling/allowed_tokens.h"

namespace ogai::sampling {

class DenseWeights {
 public:
  void reserve(size_t vocab_size) { weights_.resize(vocab_size); }
  size_t capacity() const { return weights_.size(); }

  // weights = exp(logits - max) (0 for -inf). Throws ogai::Error on NaN/+inf logits or when
  // every logit is -inf.
  void compute(std::span<const float> logits);
  // The same with the ids `allowed` forbids set to -inf in `logits` in the same pass (weight 0;
  // their old logits unread): the row and weights of materialize() then compute(), so the passes
  // after it (top-p's gather) run on the masked row.
  void compute(std::span<float> logits, const AllowedTokens& allowed);
  // HF MinPLogitsWarper with min_tokens_to_keep 1: zero the weights below min_p times the largest
  // (which is 1, so the top token always stays).
  void apply_min_p(double min_p);
  // Sum of the weights (blocks of 8 summed pairwise, in id order).
  double total() const;
  // The id at which the cumulative weight first exceeds u * total(), for u in [0, 1).
  int64_t draw(double u) const;

  std::span<const float> weights() const { return {weights_.data(), size_}; }
  float max_logit() const { return max_; }

 private:
  std::vector<float> weights_;  // [V] exp(logit - max), 0 for -inf and filtered ids
  size_t size_ = 0;
  float max_ = 0.0f;
};

}  // namespace ogai::sampling
