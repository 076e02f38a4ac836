// NgramDrafter: model-free speculative drafting by prompt lookup. Finds the most recent earlier
// occurrence of the sequence's last n tokens (n from ngram_max down to kMinMatch, the longest
// match first) and proposes the tokens that followed it. A single matching token (n = 1) proposes
// nothing unless ngram_max is 1: on stories260k its first token is accepted 25% of the time
// (n = 2: 51%, n = 3: 59%; docs/speculative.md), too little to pay for widening a run, and
// its misses drag the row's acceptance average down so that the good proposals are declined too.
// Costs O(history * n) per proposal; no model, no memory.
#pragma once

#include "generate/drafter.h"

namespace ogai::generate {

class NgramDrafter : public Drafter {
 public:
  static constexpr int kMinMatch = 2;
  explicit NgramDrafter(int ngram_max);
  void propose(const DraftRequest& request, std::vector<TokenId>& out) const override;

 private:
  int ngram_max_;
  int ngram_min_;
};

}  // namespace ogai::generate
