// SamplingParams: what a request asks of next-token selection, as a plain struct.
//
// Each field documents its meaning, its default (the value that disables it) and its allowed
// range. validate() checks the ranges and throws ogai::Error naming the field, the value and the
// range; it does not know the vocabulary size (Sampler checks logit_bias ids against it).
// Precedence of request values over package defaults is the caller's business (the decode loop
// merges them before constructing a Sampler).
//
// Semantics follow Hugging Face transformers (temperature, top_k, top_p, min_p, typical_p,
// repetition_penalty, do_sample, min_tokens_to_keep) and the OpenAI API as served by vLLM
// (frequency_penalty, presence_penalty, logit_bias). docs/sampling.md gives the order and formulas.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sampling/constraint.h"

namespace ogai::sampling {

struct SamplingParams {
  // false: greedy decoding (argmax of the processed logits; no warpers), as HF's do_sample=false.
  // Default true. Greedy is also used whenever temperature == 0 (the OpenAI convention).
  bool do_sample = true;

  // Divides the logits before the other warpers. 1 = unchanged (default); 0 = greedy.
  // Range [0, +inf), finite.
  double temperature = 1.0;

  // Keep the top_k highest-scoring tokens (plus every token tied with the k-th). 0 = disabled
  // (default). Range [0, +inf).
  int64_t top_k = 0;

  // Nucleus: keep the smallest set of most probable tokens whose mass reaches top_p.
  // 1 = disabled (default). Range (0, 1].
  double top_p = 1.0;

  // Drop tokens whose probability is below min_p times the top token's probability.
  // 0 = disabled (default). Range [0, 1].
  double min_p = 0.0;

  // Locally typical sampling: keep the tokens whose surprisal is closest to the entropy until
  // their mass reaches typical_p. 1 = disabled (default). Range (0, 1].
  double typical_p = 1.0;

  // HF/CTRL repetition penalty over every distinct token of prompt + generated text: a positive
  // logit is divided by it, a negative one multiplied. 1 = disabled (default). Range (0, +inf).
  double repetition_penalty = 1.0;

  // OpenAI frequency penalty: subtract frequency_penalty * (times the token was generated).
  // 0 = disabled (default). Range [-2, 2].
  double frequency_penalty = 0.0;

  // OpenAI presence penalty: subtract presence_penalty once from every token generated so far.
  // 0 = disabled (default). Range [-2, 2].
  double presence_penalty = 0.0;

  // OpenAI logit bias: token id -> value added to its logit before everything else.
  // Empty by default. Ids >= 0 (and < vocabulary size, checked by Sampler); values in [-100, 100].
  std::map<TokenId, double> logit_bias;

  // Seed of the sampler's generator (see rng.h). Unset (default): a nondeterministic seed.
  std::optional<uint64_t> seed;

  // Filtering warpers never keep fewer than this many tokens (HF's min_tokens_to_keep; HF uses 1
  // outside beam search). Default 1. Range [1, +inf).
  int64_t min_tokens_to_keep = 1;

  // Structured output: a compiled grammar (src/grammar/) whose per-sequence state masks every
  // disallowed token to -inf before the processors, in greedy and sampled mode and in
  // distribution(). Null (default): unconstrained. Shared and immutable; see constraint.h.
  std::shared_ptr<const Constraint> constraint;

  // True when the sampler picks the argmax (do_sample false or temperature 0).
  bool greedy() const { return !do_sample || temperature == 0.0; }

  // Throws ogai::Error (kInvalidArgument) for the first field out of range. `where` prefixes the
  // field name in the error (e.g. "request" gives where = "request.top_p").
  void validate(const std::string& where = "sampling") const;
};

// The one rule for "does this request sample?", shared by the native decode loop, the workflow
// interpreter's sampling roles and the CLI: do_sample when the request says it; otherwise a
// temperature > 0 or any filtering warper it sets (top_k, top_p, min_p, typical_p) asks for
// sampling (the OpenAI and llama.cpp convention); otherwise the package's default.
inline bool request_samples(std::optional<bool> do_sample, std::optional<double> temperature, bool sets_filter,
                            bool package_default = false) {
  if (do_sample) return *do_sample;
  return (temperature && *temperature > 0) || sets_filter || package_default;
}

}  // namespace ogai::sampling
