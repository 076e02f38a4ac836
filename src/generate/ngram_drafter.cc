#include "generate/ngram_drafter.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::generate {

NgramDrafter::NgramDrafter(int ngram_max) : ngram_max_(ngram_max), ngram_min_(std::min(kMinMatch, ngram_max)) {
  if (ngram_max < 1) fail(ErrorCode::kInvalidArgument, "ngram_max", "{} must be at least 1", ngram_max);
}

void NgramDrafter::propose(const DraftRequest& request, std::vector<TokenId>& out) const {
  const auto h = request.history;
  const std::size_t size = h.size();
  if (size < 2) return;
  const auto least = static_cast<std::size_t>(ngram_min_);
  for (std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(ngram_max_), size - 1); n >= least; --n) {
    const auto suffix = h.subspan(size - n);
    // The most recent earlier occurrence: start positions from size - n - 1 down to 0.
    for (std::size_t start = size - n; start-- > 0;) {
      if (!std::equal(suffix.begin(), suffix.end(), h.begin() + start)) continue;
      const std::size_t follow = start + n;
      const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(request.max_tokens), size - follow);
      out.insert(out.end(), h.begin() + follow, h.begin() + follow + count);
      return;
    }
  }
}

}  // namespace ogai::generate
