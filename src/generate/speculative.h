// Speculative decoding as a decoding strategy of one LiveSequence (live_sequence.h), stepped by
// the engine (engine.h) like every other sequence. Each step(): the Drafter proposes up to K
// tokens after the pending one; the target runs the pending token and the proposal in one
// multi-token run on the sequence's own state; the sequence keeps proposed tokens while the target
// accepts them, plus the target's own token at the first rejection (or after the last proposal).
// The KV of rejected positions is rolled back (truncation: free with shared buffers, a copy of the
// kept prefix in append mode); state that cannot rewind (recurrent) is snapshotted before the run
// (a deep copy) and the accepted tokens are replayed (a second run).
// Greedy: a proposal is accepted when it equals the target's greedy choice, so the emitted tokens
// are exactly plain greedy decoding's (same processors, same stop rules), up to floating-point
// differences between one multi-token step and single steps.
// Sampling: speculative sampling with a one-hot draft (speculative_accept.h) over the distribution
// plain sampling draws from at each position (penalties see the accepted tokens), so each emitted
// token has plain sampling's distribution; a seed fixes the output, but not to plain sampling's
// sample path for that seed.
// Where the verification runs (engine.h decides per sequence):
//   batched: the sequence is a row of the engine's shared batch (kv::BatchCache); each step the
//     engine calls propose() for every speculative row, runs ONE multi-token step over all rows
//     (padded to the widest proposal + 1, the mask hiding the padding; plain rows feed one real
//     token), hands each row its logits (verify()) and rolls every row back to what it kept
//     (kv::BatchCache::keep_prefixes). Needs a left-padded append cache (stories260k-like
//     graphs with an attention mask) and a drafter that reads neither the target's KV nor its
//     hidden state (the n-gram drafter);
//   solo (step()): the sequence's own batch-1 state, one run per sequence per step, for
//     everything else: recurrent state (snapshot + replay, above), shared buffers and static
//     caches (GroupQueryAttention takes one new token per row once batched), and the assistant
//     drafter, which borrows its owner's KV and hidden state.
// A SpeculationGate (speculation_gate.h) stops drafting for a while when acceptance is too low
// to pay, in both modes.
// Not thread-safe: the engine's thread only.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "generate/drafter.h"
#include "generate/output_stream.h"
#include "generate/sequence.h"
#include "generate/speculation_gate.h"
#include "generate/token_logprobs.h"
#include "ogai/token_id.h"
#include "sampling/sampler.h"

namespace ogai::generate {

// How a sequence decodes speculatively. The drafter is immutable and may be shared by many
// sequences; the sequence keeps it alive.
struct Speculation {
  std::shared_ptr<const Drafter> drafter;  // null: plain decoding
  int max_draft_tokens = 0;                // K, >= 1 when drafter is set
};

// The speculative decoding state of one sequence: the drafter, the target's hidden state at the
// last KV position (the assistant drafter's seed) and scratch. It chooses tokens with the
// sequence's own sampler, logprob recorder and output stream, which must outlive it.
class SpeculativeDecoder {
 public:
  SpeculativeDecoder(const SequenceModel& model, Speculation speculation, const ResolvedRequest& request,
                     sampling::Sampler& sampler, LogprobRecorder& logprobs, OutputStream& output,
                     GenerationResult& result);

  // After the prefill: `out` is the output of the run that fed the last prompt token, at
  // `position` in it (its hidden state, when the graph has one, is kept for the drafter).
  void start(StepOutput& out, std::int64_t position);
  // A fork (n > 1) starts from its parent's prefill: copies the parent's kept hidden state.
  void start_as_copy(const SpeculativeDecoder& parent);

  // One solo step on `state` (the KV of every committed token but `pending`): proposes, verifies
  // in one run, emits the kept tokens and rolls the rest back. `pending` becomes the last emitted
  // token (not fed yet). Adds ONNX Runtime time to `run_seconds`. Returns whether the sequence ended.
  bool step(SequenceState& state, TokenId& pending, double& run_seconds);

  // Batched steps. propose(): the tokens to feed this step, `pending` then at most `limit` proposed
  // tokens (fewer by the request's budget; none while the gate is closed). `tokens` are the
  // committed tokens (their KV is in the batch). The span stays valid until the next propose().
  std::span<const TokenId> propose(std::span<const TokenId> tokens, const kv::KvCache* cache, TokenId pending,
                                   int limit);
  std::span<const TokenId> proposed() const { return step_tokens_; }
  // Verifies only the first `keep` proposed tokens (the engine's width, speculation_width.h). A
  // proposal trimmed away whole is still checked against the token emitted instead (free: no
  // run), so the acceptance average keeps learning while the row decodes plainly.
  void trim(std::size_t keep);
  // After a plain step emitted `token` (the row's proposal, if any, was trimmed away).
  void observe_plain(TokenId token);
  // After the run that fed proposed() at row `row` of `out` (positions 0..): emits the verified
  // tokens. `kept` becomes how many fed tokens keep their KV (pending + the accepted proposal);
  // `pending` the last emitted token. Returns whether the sequence ended.
  bool verify(StepOutput& out, std::int64_t row, TokenId& pending, std::size_t& kept);
  const SpeculationGate& gate() const { return gate_; }
  const Drafter& drafter() const { return *speculation_.drafter; }

 private:
  struct Emitted {
    bool done = false;
    bool accepted = false;  // the token is the proposal
  };
  Emitted emit(StepOutput& out, std::int64_t row, std::int64_t at, std::optional<TokenId> draft, TokenId& pending);
  std::int64_t emit_verified(StepOutput& out, std::int64_t row, TokenId& pending, bool& done);
  int proposal_budget() const;

  SequenceModel model_;
  Speculation speculation_;
  const ResolvedRequest& request_;
  sampling::Sampler& sampler_;
  LogprobRecorder& logprobs_;
  OutputStream& output_;
  GenerationResult& result_;
  ort::Tensor hidden_;                // [1, S, H]: the target's hidden state of the last run, or empty
  std::int64_t hidden_row_ = 0;       // the position in hidden_ of the last KV token
  std::vector<TokenId> history_;      // committed tokens + pending, for the drafter
  std::vector<TokenId> step_tokens_;  // pending + proposal: what one verification run feeds
  std::vector<float> scratch_;
  SpeculationGate gate_;
  std::optional<TokenId> shadow_;  // the first proposed token of a proposal trimmed away
};

}  // namespace ogai::generate
