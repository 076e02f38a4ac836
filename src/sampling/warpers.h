// Logits warpers of HF transformers' sampling path (temperature, top-p, min-p, typical-p; top-k
// is Candidates::gather_top_k), each with HF's filtering rule and min_tokens_to_keep semantics.
//
// temperature works on the dense logits in place; the filters work on a Candidates list and
// remove entries (HF sets them to -inf). The filters allocate nothing and cost O(n) plus a sort
// of only the prefix they need to look at (O(n log m) for a prefix of m of the n candidates).
// Ties: HF's torch.sort leaves the order of equal values unspecified; ogai breaks ties by the
// lower token id. Not thread-safe (they mutate their arguments).
#pragma once

#include <cstddef>
#include <span>

#include "sampling/candidates.h"
#include "sampling/dense_weights.h"

namespace ogai::sampling {

// HF TemperatureLogitsWarper: logits[i] /= temperature (float32), temperature > 0.
void apply_temperature(std::span<float> logits, float temperature);

// HF TopPLogitsWarper: keeps, in rank order, the tokens whose higher-ranked mass is below top_p
// (equivalently HF removes tokens whose ascending cumulative probability is <= 1 - top_p), and
// always the min_keep best. Leaves the list in rank order.
void filter_top_p(Candidates& candidates, double top_p, size_t min_keep);

// filter_top_p over the whole vocabulary without a candidate per token: finds a logit threshold
// below the max (max - 2, - 4, - 8, ...) above which the weights already hold the top_p mass and
// min_keep tokens, gathers only those into `out` (a superset of the nucleus, since the nucleus is
// the best-ranked tokens) and cuts them with the whole vocabulary's mass as normalizer. Same result
// as gather_all + filter_top_p; `dense` must hold the weights of `logits`.
void gather_top_p(std::span<const float> logits, const DenseWeights& dense, double top_p,
                  size_t min_keep, Candidates& out);

// HF MinPLogitsWarper: removes tokens with p < min_p * p_max, keeping the min_keep best.
// Preserves the list's order unless min_keep > 1 needs a rank sort.
void filter_min_p(Candidates& candidates, double min_p, size_t min_keep);

// HF TypicalLogitsWarper: ranks tokens by |-log p - H| (H the entropy), finds the first rank
// where the cumulative probability reaches `mass`, and removes tokens whose score exceeds that
// rank's score, keeping the min_keep best-ranked. Leaves the list in unspecified order.
void filter_typical_p(Candidates& candidates, double mass, size_t min_keep);

}  // namespace ogai::sampling
