// Prompt log-probabilities (GenerationOptions::prompt_logprobs): read from the logits of the
// prefill steps, which must cover every fed position ([batch, seq, vocab] with seq = the tokens fed).
// Entry i of the prompt is compute_token_logprobs() of the logits at position i-1 evaluated at
// prompt id i (the same semantics as generated tokens' logprobs); entry 0 stays empty.
// Not thread-safe; one per prefill.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "generate/decoder.h"
#include "ogai/generation.h"

namespace ogai::generate {

class PromptLogprobs {
 public:
  // `prompt` (the ids as fed, from position 0) must outlive this; `entries` is resized to its size.
  PromptLogprobs(std::span<const TokenId> prompt, int top_n, std::vector<std::optional<TokenLogprobs>>& entries);

  // Records the entries predicted by one prefill step that fed prompt[begin, begin + n). Throws
  // ogai::Error (kUnsupported) when the step's logits do not hold one row per fed token.
  void observe(StepOutput& out, std::size_t begin, std::size_t n);

 private:
  std::span<const TokenId> prompt_;
  int top_n_;
  std::vector<std::optional<TokenLogprobs>>& entries_;
  std::vector<float> scratch_;
};

}  // namespace ogai::generate
