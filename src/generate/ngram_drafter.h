// NgramDrafter: model-free speculative drafting by prompt lookup. Finds the most recent earlier
// occurrence of the sequence's last n tokens (n from ngram_max down to 1) and proposes the tokens
// that followed it. Costs O(history * n) per proposal; no model, no memory.
#pragma once

#include "generate/drafter.h"

namespace ogai::generate {

class NgramDrafter : public Drafter {
 public:
  explicit NgramDrafter(int ngram_max);
  void propose(const DraftRequest& request, std::vector<std::int32_t>& out) const override;

 private:
  int ngram_max_;
};

}  // namespace ogai::generate
