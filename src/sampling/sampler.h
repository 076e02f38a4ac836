// Sampler: picks the next token from one row of logits, with HF transformers' semantics.
//
// Per token, in this order (docs/sampling.md has the formulas and sources):
//   0. the constraint (params.constraint, structured output): tokens its grammar forbids -> -inf.
//      Not written into the row: its compact set (allowed_tokens.h) is consumed inside the O(V)
//      pass of the chain below (argmax, dense weights, candidate gathers), which treats a
//      forbidden id as -inf; the same tokens as writing -inf first, since every processor maps
//      -inf to -inf and touches only the ids it names.
//   processors (also in greedy mode), in place on the dense logits:
//     1. logit_bias            (OpenAI; vLLM applies it before its penalties)
//     2. repetition_penalty    (HF RepetitionPenaltyLogitsProcessor; prompt + generated)
//     3. frequency_penalty, 4. presence_penalty   (OpenAI/vLLM; generated tokens only)
//   then greedy: argmax, ties to the lowest id (torch.argmax);
//   or sampling: HF's warper order from GenerationMixin._get_logits_processor
//     5. temperature  6. top_k  7. top_p  8. min_p  9. typical_p
//     10. multinomial draw over the survivors, driven by Rng (rng.h) seeded with params.seed.
//
// Cost per token: O(distinct history ids) for the processors; then streaming passes over V, never
// a sort of the vocabulary (docs/sampling.md, "Cost"), by the chain's shape:
//   no rank filter (temperature, min-p with min_tokens_to_keep 1): dense weights (a max pass and
//     an exp pass with block and chunk sums; dense_weights.h), a draw through the chunk sums;
//   top-k: one pass that skips every 64-id block below the heap's floor (Candidates), then the
//     later filters on the k survivors;
//   top-p or typical-p without top-k (min_tokens_to_keep 1, typical-p alone): dense weights, a
//     draw from all of them kept when one masked pass shows the token survives the cut
//     (cut_test.h; rejection), and after kCutTests refusals the cut found by histograms of the
//     weights' (scores') bits (nucleus.h) and a masked draw in id order;
//   anything else (min_tokens_to_keep > 1 with a rank filter, top-p with typical-p): the candidate
//     list of the whole vocabulary with prefix sorts, as distribution() always builds.
// Temperature is applied inside those passes (the same float32 quotient x / T).
// Scratch buffers are allocated in the constructor (and by TokenHistory as ids are first seen);
// sample() allocates nothing.
//
// sample() may overwrite `logits` (with processed scores, -inf over a constraint's forbidden ids,
// or not at all, by chain) — pass a buffer you no longer need, such as the model's output for
// this step. distribution() does overwrite it with the processed scores (processors, temperature).
// With a constraint the Sampler owns its per-sequence state (constraint.h): made in the
// constructor and in reset(), advanced by accept(); its mask costs are the grammar's
// (docs/structured_output.md). Move-only then as always; not copyable.
// Not thread-safe: one Sampler per sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "sampling/candidates.h"
#include "sampling/dense_weights.h"
#include "sampling/nucleus.h"
#include "sampling/rng.h"
#include "sampling/sampling_params.h"
#include "sampling/token_history.h"

namespace ogai::sampling {

// The softmax normalizer of a raw logits row: max x and sum of exp_nonpositive_fast(x - max).
struct RawSoftmaxSum {
  float max = 0.0f;
  double total = 0.0;
};

class Sampler {
 public:
  // Validates `params` (ogai::Error naming the field) and checks logit_bias ids < vocab_size.
  Sampler(SamplingParams params, int64_t vocab_size);

  // Starts a sequence: the history becomes the prompt (for the repetition penalty) and, when
  // params.seed is set, the generator restarts from it, so a reused Sampler repeats its draws.
  // A constraint restarts at the beginning of its grammar.
  void reset(std::span<const TokenId> prompt_ids);

  // Runs the chain on `logits` (size V, overwritten) and returns the chosen id. Does not record
  // it: call accept() with the token the sequence actually continues with, or use next().
  // Throws ogai::Error when a logit is NaN/+inf or every token ends up at -inf.
  TokenId sample(std::span<float> logits);
  // Appends a generated token to the history the penalties read (and advances the constraint,
  // which throws ogai::Error for a token it forbids).
  void accept(TokenId token);
  // sample() then accept(): the call of a plain decode loop.
  TokenId next(std::span<float> logits);

  // The distribution sample() would draw from (in greedy mode: the softmax of the processed
  // logits, whose argmax greedy picks), with normalized p, in rank or id order. Overwrites
  // `logits` like sample(); the span is valid until the next call. Does not record a token (see
  // accept()). For tests and speculative sampling (which draws from it with rng()); it always
  // builds the candidate list (allocating it on first use on the dense path).
  std::span<const Candidate> distribution(std::span<float> logits);

  // Whether sample() leaves `logits` as it was given: no logit bias or penalty, no constraint, and
  // a chain that reads the row only (greedy, temperature / min-p, top-p / min-p without top-k).
  // A caller that needs the raw row afterwards (log-probabilities) may then hand it over uncopied.
  bool leaves_row() const { return leaves_row_; }
  // After sample(): the raw row's softmax normalizer when the chain computed it anyway (its dense
  // weights are exp(x - max x) of the unprocessed row: temperature 1, nothing above, no min-p
  // zeroing), else nullopt. What the log-probabilities of the row need, without a pass of their own.
  std::optional<RawSoftmaxSum> raw_softmax_sum() const;

  // The generator sample() draws from, for a caller that draws from distribution() instead; its
  // draws advance the same seeded stream.
  Rng& rng() { return rng_; }

  const SamplingParams& params() const { return params_; }
  const TokenHistory& history() const { return history_; }
  int64_t vocab_size() const { return vocab_size_; }
  // The constraint's state for this sequence; null without params.constraint.
  const ConstraintState* constraint() const { return constraint_.get(); }

 private:
  void plan_chain();
  void check_size(std::span<const float> logits) const;
  // The constraint's allowed set for this step (allowed_), or null without a constraint.
  const AllowedTokens* constrain();
  void apply_processors(std::span<float> logits);
  void apply_warpers(std::span<float> logits, const AllowedTokens* allowed);
  void gather_all(std::span<const float> logits, const AllowedTokens* allowed);
  TokenId draw();
  TokenId sample_dense(std::span<float> logits, const AllowedTokens* allowed);
  TokenId sample_top_k(std::span<float> logits, const AllowedTokens* allowed);
  TokenId sample_nucleus(std::span<float> logits, const AllowedTokens* allowed);
  TokenId sample_typical(std::span<float> logits, const AllowedTokens* allowed);
  TokenId draw_kept(const KeptSet& kept, std::span<const float> y);

  // Draws tested against the cut one at a time before the cut is found for the whole row
  // (sample_nucleus, sample_typical), and draws in all before the masked walk (draw_kept).
  static constexpr int kCutTests = 3;
  static constexpr int kTries = 64;

  // How sample() runs the warpers (see the cost note above).
  enum class Path { kDense, kTopK, kNucleus, kTypical, kCandidates };

  SamplingParams params_;
  int64_t vocab_size_;
  std::vector<std::pair<TokenId, float>> bias_;  // logit_bias in id order, float32
  TokenHistory history_;
  bool top_k_active_ = false;  // top_k clamped by HF's rule is below V
  bool leaves_row_ = false;    // see leaves_row()
  bool raw_sum_path_ = false;  // the dense weights of kDense / kNucleus are the raw row's softmax terms
  bool raw_sum_ready_ = false; // the last sample() computed them
  Path path_ = Path::kCandidates;
  Candidates candidates_;      // reserved for kTopK and kCandidates (or by distribution())
  DenseWeights dense_;         // reserved for kDense, kNucleus, kTypical and candidate top-p
  NucleusCut nucleus_;         // kNucleus, kTypical
  std::vector<float> scores_;  // [V] kTypical's scores
  Rng rng_;
  std::unique_ptr<ConstraintState> constraint_;  // from params_.constraint
  AllowedTokens allowed_;                        // this step's, borrowed from constraint_
};

// Greedy choice: index of the largest logit, the lowest such index on ties (torch.argmax).
// Throws ogai::Error on a NaN logit or when every logit is -inf.
TokenId argmax(std::span<const float> logits);
// The same over the ids `allowed`, forbidden ids counted as -inf (never read: no NaN error there).
TokenId argmax(std::span<const float> logits, const AllowedTokens& allowed);

}  // namespace ogai::sampling
