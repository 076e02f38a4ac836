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
// Why each speculative sequence runs alone (not batched with other rows): a verification run
// feeds 1 + k tokens with k per row and per step, and rollback is per row; the decoder's
// [batch, sequence] ports would need every row padded to the longest proposal and kv::BatchCache a
// per-row truncate. Running it on the sequence's own batch-1 state (as prefill chunks are) keeps
// the assistant drafter's borrowed KV views simple (the drafter reads the target KV of exactly its
// owner) and the rollback the one single-sequence truncate. Cost: one ONNX Runtime run per
// speculative sequence per step (plus the drafter's runs), instead of a row in the shared run.
// Not thread-safe: the engine's thread only.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "generate/drafter.h"
#include "generate/output_stream.h"
#include "generate/sequence.h"
#include "generate/token_logprobs.h"
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

  // One step on `state` (the KV of every committed token but `pending`): proposes, verifies in one
  // run, emits the kept tokens and rolls the rest back. `pending` becomes the last emitted token
  // (not fed yet). Adds ONNX Runtime time to `run_seconds`. Returns whether the sequence ended.
  bool step(SequenceState& state, std::int32_t& pending, double& run_seconds);

 private:
  struct Emitted {
    bool done = false;
    bool accepted = false;  // the token is the proposal
  };
  Emitted emit(StepOutput& out, std::int64_t row, std::optional<std::int32_t> draft, std::int32_t& pending);
  std::int64_t emit_verified(StepOutput& out, std::int32_t& pending, bool& done);
  int proposal_budget() const;

  SequenceModel model_;
  Speculation speculation_;
  const ResolvedRequest& request_;
  sampling::Sampler& sampler_;
  LogprobRecorder& logprobs_;
  OutputStream& output_;
  GenerationResult& result_;
  ort::Tensor hidden_;          // [1, S, H]: the target's hidden state of the last run, or empty
  std::int64_t hidden_row_ = 0;  // the position in hidden_ of the last KV token
  std::vector<std::int32_t> history_;      // committed tokens + pending, for the drafter
  std::vector<std::int32_t> step_tokens_;  // pending + proposal: what one verification run feeds
  std::vector<float> scratch_;
};

}  // namespace ogai::generate
