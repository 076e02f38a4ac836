// The sampler as it was before the histogram and selection passes (src/sampling/ at commit 3812714:
// candidates, dense weights, warpers, sampler), kept verbatim in namespace ogai::sampling::legacy as
// the reference that tests/sampling/fast_paths_test.cc and bench/sampling_bench.cc compare the
// current Sampler against (same token frequencies, same greedy and top-k 1 tokens, speed ratios).
// Not used by the runtime. Shares the unchanged parts of the stage (params, history, penalties,
// generator, allowed sets, exp). Its own contracts are those of the old headers, restated briefly:
// Sampler(params, V); reset(prompt); sample(row) overwrites row and returns a token; accept(t);
// distribution(row). Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "sampling/allowed_tokens.h"
#include "sampling/constraint.h"
#include "sampling/rng.h"
#include "sampling/sampling_params.h"
#include "sampling/token_history.h"

// Candidates: the tokens still in play after filtering, as a reusable scratch list.
//
// The warpers of HF transformers set filtered logits to -inf over the whole vocabulary; ogai keeps
// the survivors (finite logits) in a compact list instead, so that after top-k the remaining steps
// cost O(k), not O(V). A token with logit -inf has probability 0 in both views, so the resulting
// distribution is the same.
//
// The list is in one of three orders. kById (ascending id) and kByRank (logit descending, ties by
// ascending id) are canonical: they depend only on the logits, not on the sort algorithm of the
// standard library, which keeps seeded draws identical across platforms. kUnspecified lists are
// put in id order before a draw.
//
// Memory: reserve(V) allocates the list once and gather_top_k sizes its heap on first use;
// nothing allocates after that. Not thread-safe.



namespace ogai::sampling::legacy {

struct Candidate {
  float logit;  // processed score
  float p;      // probability after normalize(); a weight proportional to it after
                // ensure_weights() (see weights_valid())
  float key;    // scratch sort key (typical-p)
  int32_t id;   // token id
};

enum class CandidateOrder { kById, kByRank, kUnspecified };

// Rank order: higher logit first; equal logits by lower id (torch.argmax's tie rule).
inline bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

class Candidates {
 public:
  void reserve(size_t vocab_size);
  size_t capacity() const { return items_.size(); }

  // Every token with a finite logit, in id order. Throws ogai::Error on NaN or +inf.
  void gather_all(std::span<const float> logits);
  // HF top-k: the k highest logits and every logit equal to the k-th (k >= 1), in id order, in
  // O(V log k) without sorting. Throws ogai::Error on NaN or +inf.
  void gather_top_k(std::span<const float> logits, size_t k);
  // The same over the ids `allowed` (constraint.h), forbidden ids counted as -inf: the lists
  // equal those of the row with -inf materialized. O(V / 64 + allowed blocks * 64), or O(allowed)
  // for a listed set (plus O(log k) per heap entry for top-k).
  void gather_all(std::span<const float> logits, const AllowedTokens& allowed);
  void gather_top_k(std::span<const float> logits, size_t k, const AllowedTokens& allowed);

  // Every token with logit >= threshold, in id order, with p = weights[id] (weights from
  // DenseWeights, so p is valid). Logits are assumed already checked (no NaN/+inf).
  void gather_at_least(std::span<const float> logits, std::span<const float> weights, float threshold);

  // Softmax of the logits into p (max-subtracted exp_nonpositive, double sum).
  void normalize();
  // Ensures p holds weights proportional to the softmax of the current list (normalized or
  // not): after normalize(), removing entries keeps them valid, so a draw needs no second pass.
  void ensure_weights();
  bool weights_valid() const { return weights_valid_; }
  // Sum of p over the live items, block by block (8 items, pairwise inside) in list order.
  double total_weight() const;
  // The first index whose cumulative p (summed as total_weight() does) exceeds target; when
  // rounding leaves target at the very top, the last item with p > 0; size() when all p are 0.
  size_t find_cumulative(double target) const;
  // Sorts items [from, to) into rank order, given that [0, from) already holds the `from`
  // best-ranked items in order. O(n) selection plus O((to - from) log(to - from)).
  void extend_rank_prefix(size_t from, size_t to);
  // Puts the list in id order (no-op when it is).
  void sort_by_id();

  std::span<Candidate> items() { return {items_.data(), size_}; }
  std::span<const Candidate> items() const { return {items_.data(), size_}; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Keeps the first n items (n <= size()).
  void truncate(size_t n) { size_ = n; }
  CandidateOrder order() const { return order_; }
  void set_order(CandidateOrder order) { order_ = order; }

 private:
  void push(float logit, int32_t id) { items_[size_++] = Candidate{logit, 0.0f, 0.0f, id}; }

  double exp_weights();  // p = exp(logit - max) for every live item; returns their sum
  void start_list();     // empty, in id order, weights invalid
  // The top-k passes over the logits `visit(fn)` hands to fn(x, id) in ascending id order.
  template <class Visit>
  void top_k_passes(Visit&& visit, size_t k);

  std::vector<Candidate> items_;  // [V] capacity; the first size_ are live
  std::vector<float> heap_;       // [k] scratch min-heap of gather_top_k
  size_t size_ = 0;
  bool weights_valid_ = false;  // p proportional to exp(logit - max) over the live items
  CandidateOrder order_ = CandidateOrder::kById;
};

// Throws the ogai::Error for a NaN or +inf logit at `id`.
[[noreturn]] void fail_bad_logit(float value, size_t id);

}  // namespace ogai::sampling::legacy

// DenseWeights: exp(logit - max) over the whole vocabulary in one dense array, for the chains
// that need no candidate list (no top-k, top-p or typical-p: draw() walks the weights directly)
// and for top-p without top-k (gather_top_p() in warpers.h reads them to find a small superset of
// the nucleus instead of sorting V entries). About 4x less memory traffic than a candidate list.
//
// The walk is in id order, the canonical order Candidates also uses for draws.
// Memory: reserve(V) allocates once; nothing else allocates. Not thread-safe.



namespace ogai::sampling::legacy {

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

}  // namespace ogai::sampling::legacy

// Logits warpers of HF transformers' sampling path (temperature, top-p, min-p, typical-p; top-k
// is Candidates::gather_top_k), each with HF's filtering rule and min_tokens_to_keep semantics.
//
// temperature works on the dense logits in place; the filters work on a Candidates list and
// remove entries (HF sets them to -inf). The filters allocate nothing and cost O(n) plus a sort
// of only the prefix they need to look at (O(n log m) for a prefix of m of the n candidates).
// Ties: HF's torch.sort leaves the order of equal values unspecified; ogai breaks ties by the
// lower token id. Not thread-safe (they mutate their arguments).



namespace ogai::sampling::legacy {

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

}  // namespace ogai::sampling::legacy

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
// Cost per token: O(distinct history ids) for the processors; O(V) for argmax and for the
// temperature/gather pass (O(V log k) with top-k); the later filters only see the survivors.
// Chains with no rank-based filter (no top-k/top-p/typical-p; min-p with min_tokens_to_keep 1)
// draw straight from dense weights (dense_weights.h) without a candidate list; top-p without
// top-k gathers only a superset of the nucleus from them. Typical-p without top-k must rank the
// whole vocabulary (O(V log V) worst case).
// Scratch buffers are allocated in the constructor (and by TokenHistory as ids are first seen);
// sample() allocates nothing.
//
// sample() overwrites `logits` with the processed scores (the dense part of the chain; with a
// constraint, forbidden ids keep a processed score that no step reads) — pass a buffer you no
// longer need, such as the model's output for this step.
// With a constraint the Sampler owns its per-sequence state (constraint.h): made in the
// constructor and in reset(), advanced by accept(); its mask costs are the grammar's
// (docs/structured_output.md). Move-only then as always; not copyable.
// Not thread-safe: one Sampler per sequence.



namespace ogai::sampling::legacy {

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

  SamplingParams params_;
  int64_t vocab_size_;
  std::vector<std::pair<TokenId, float>> bias_;  // logit_bias in id order, float32
  TokenHistory history_;
  bool top_k_active_ = false;  // top_k clamped by HF's rule is below V
  bool dense_path_ = false;    // no rank-based filter: draw from dense_, skip candidates_
  Candidates candidates_;      // reserved when ranks are needed (or by distribution())
  DenseWeights dense_;         // reserved for dense_path_ and for top-p without top-k
  Rng rng_;
  std::unique_ptr<ConstraintState> constraint_;  // from params_.constraint
  AllowedTokens allowed_;                        // this step's, borrowed from constraint_
};

// Greedy choice: index of the largest logit, the lowest such index on ties (torch.argmax).
// Throws ogai::Error on a NaN logit or when every logit is -inf.
TokenId argmax(std::span<const float> logits);
// The same over the ids `allowed`, forbidden ids counted as -inf (never read: no NaN error there).
TokenId argmax(std::span<const float> logits, const AllowedTokens& allowed);

}  // namespace ogai::sampling::legacy

