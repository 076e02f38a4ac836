// Token log-probabilities (GenerationOptions::logprobs): log-softmax of the model's raw logits at
// each generated position, taken before the sampler's processors and warpers touch the row.
//
// Semantics (docs/sampling.md): logprob(i) = x[i] - max(x) - log(sum_j exp(x[j] - max(x))), in
// float32 with the sum accumulated in double (a stable log-sum-exp; -inf logits contribute 0).
// The top-N alternatives are ranked by logit, ties by the lower id.
//
// Cost: off, nothing (observe() returns the row itself). On, per token: one vectorized pass that
// copies the row for the sampler (which overwrites its input; no copy when the sampler promises
// to leave it: Sampler::leaves_row()), takes its max and selects the N best (a heap of N; blocks
// of 64 whose maximum cannot enter it are only copied), then in entry() a vectorized exp sum,
// skipped when the sampler hands over the same sum (Sampler::raw_softmax_sum(): temperature 1,
// no processors): one or two streaming passes, no sort. Allocates only on first use (and the top
// list of each entry).
// Not thread-safe; one per sequence (or batch row).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ogai/generation.h"
#include "sampling/sampler.h"

namespace ogai::generate {

// The most alternatives a request may ask for.
inline constexpr int kMaxTopLogprobs = 20;

// The entry of `chosen` for the logits row `logits` with `top_n` alternatives: the reference
// computation (tests, and what LogprobRecorder computes in fewer passes).
TokenLogprobs compute_token_logprobs(std::span<const float> logits, TokenId chosen, int top_n);

class LogprobRecorder {
 public:
  // `top_n` unset: off. Otherwise in [0, kMaxTopLogprobs] (checked by resolve_request).
  explicit LogprobRecorder(std::optional<int> top_n) : top_n_(top_n) {}

  bool enabled() const { return top_n_.has_value(); }
  // Off: returns `raw`. On: scans `raw` (left untouched; it must stay valid until entry()) and
  // returns a copy the sampler may overwrite, or `raw` itself when `sampler_leaves_row` (the
  // sampler's leaves_row(): it will not write it).
  std::span<float> observe(std::span<float> raw, bool sampler_leaves_row = false);
  // The entry of the token sampled from the last observed row (valid until the next observe());
  // nullptr when off. `sum`: the sampler's raw_softmax_sum() for that row, used instead of a pass
  // of its own when given (and its max is the row's).
  const TokenLogprobs* entry(TokenId chosen, const std::optional<sampling::RawSoftmaxSum>& sum = std::nullopt);

 private:
  std::optional<int> top_n_;
  std::span<const float> raw_;
  std::vector<float> copy_;
  float max_ = 0;
  float log_sum_ = 0;               // log(sum exp(x - max_)), once has_log_sum_
  bool has_log_sum_ = false;
  std::vector<TokenLogprob> heap_;  // N best logits (logprob holds the raw logit), worst first
  TokenLogprobs entry_;
};

}  // namespace ogai::generate
