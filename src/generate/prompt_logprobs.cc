#include "generate/prompt_logprobs.h"

#include "base/error.h"
#include "generate/token_logprobs.h"

namespace ogai::generate {

PromptLogprobs::PromptLogprobs(std::span<const TokenId> prompt, int top_n,
                               std::vector<std::optional<TokenLogprobs>>& entries)
    : prompt_(prompt), top_n_(top_n), entries_(entries) {
  entries_.assign(prompt.size(), std::nullopt);
}

void PromptLogprobs::observe(StepOutput& out, std::size_t begin, std::size_t n) {
  const auto& shape = out.logits.shape();
  if (shape.size() != 3 || shape[1] != static_cast<std::int64_t>(n))
    fail(ErrorCode::kUnsupported, "prompt_logprobs",
         "the decoder's logits output has {} positions for a step of {} tokens; prompt log-probabilities need "
         "logits for every fed position",
         shape.size() == 3 ? shape[1] : -1, n);
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t target = begin + j + 1;  // the prompt id these logits predict
    if (target >= prompt_.size()) break;
    if (prompt_[target] < 0) continue;  // Phi-3-V's image soft tokens (-N): features, no vocabulary entry
    entries_[target] =
        compute_token_logprobs(out.row_logits(0, static_cast<std::int64_t>(j), scratch_), prompt_[target], top_n_);
  }
}

}  // namespace ogai::generate
