// LiveSequence: one generation as a resumable object that an engine (engine.h) drives a step at
// a time. Every way ogai generates (Model::generate with or without a Context, generate_batch,
// ogai::Engine and the server, plain or speculative) runs through it:
//   1. prefill(budget): the prompt (fitted to the context when constructed) is fed in chunks on
//      the sequence's own batch-1 state, after keeping the prefix that state already holds; once
//      the whole prompt is in, the first token is sampled from the last prompt position;
//   2. decode: the engine feeds next_input() together with other rows and hands this row's logits
//      to decode(), which samples the next token, streams its text and applies the stop rules;
//      A speculative sequence (set_speculation) does not join the batch: the engine calls
//      speculate(), which proposes, verifies and rolls back on the sequence's own state
//      (speculative.h) and emits one or more tokens per call;
//   3. when done(), finish() ends the text stream and fills the result (once).
// The state (KV cache, tokens) is the sequence's own during prefill, while it decodes
// speculatively and after it leaves a batch; while it decodes in a batch, the engine holds its KV
// (state().cache is then empty).
// Errors of the sequence's own steps are kept (error()) rather than thrown, so one failing
// request never ends the others in a batch.
// Thread safety: cancel() and cancelled() from any thread; everything else from the engine's.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "generate/generation.h"
#include "generate/output_stream.h"
#include "generate/prompt_logprobs.h"
#include "generate/sequence.h"
#include "generate/sequence_steps.h"
#include "generate/speculative.h"
#include "generate/token_logprobs.h"
#include "sampling/sampler.h"

namespace ogai::generate {

class LiveSequence : public Generation {
 public:
  enum class Phase { kPrefill, kDecode, kDone };

  // Throws ogai::Error for a prompt that does not fit (unless truncation was asked) or invalid
  // sampling values. The sequence starts from an empty state unless set_state() gives it one.
  LiveSequence(const SequenceModel& model, const ResolvedRequest& request, std::span<const std::int32_t> prompt,
               StreamCallback on_token);
  LiveSequence(const LiveSequence&) = delete;
  LiveSequence& operator=(const LiveSequence&) = delete;

  Phase phase() const { return phase_; }
  bool done() const override { return phase_ == Phase::kDone; }
  // The prompt as it will be fed (after truncation).
  std::span<const std::int32_t> prompt() const { return result_.prompt_ids; }
  // The most positions the sequence can reach: prompt + max_new_tokens, within the context.
  std::int64_t max_positions() const;
  // Prompt tokens not fed yet (before the first prefill(): those beyond the kept prefix).
  std::size_t prefill_remaining() const;
  // Whether the sequence's state may be replaced by a cached prefix before its first prefill.
  bool accepts_cached_prefix() const { return phase_ == Phase::kPrefill && !started_ && !request_.prompt_logprobs; }

  // Feeds up to `budget` (>= 1) prompt tokens; once the prompt is complete, samples the first
  // token (the phase becomes kDecode, or kDone when that token ends the sequence).
  void prefill(std::size_t budget);
  // The token to feed in the next decode step.
  std::int32_t next_input() const { return pending_; }
  // After a decode step that fed next_input(): row `row` of `out` holds its logits. Samples,
  // streams and checks the stop rules. `run_seconds` is the step's time inside ONNX Runtime.
  void decode(StepOutput& out, std::int64_t row, double run_seconds);

  // Makes the sequence decode speculatively; before the first prefill() only. Throws ogai::Error
  // (kUnsupported) for requests speculative decoding cannot serve (prompt logprobs, prefill only).
  void set_speculation(Speculation speculation);
  bool speculative() const { return speculative_ != nullptr; }
  // Whether its drafter proposes from the tokens alone (no target KV or hidden state), so that the
  // sequence can verify as a row of a shared batch (draft() / verify()).
  bool drafts_from_tokens() const;
  // A batched speculative step, before the shared run: the tokens to feed (next_input() then at
  // most `limit` proposed tokens). Drafter errors propagate.
  std::span<const std::int32_t> draft(int limit);
  // Whether the engine may verify fewer tokens than draft() proposed (greedy: the output does not
  // depend on it; a seeded sampled sequence's sample path does), and the row's acceptance average.
  bool trims_drafts() const { return speculative_ && sampler_.params().greedy(); }
  double acceptance() const;
  // Keeps the first `keep` proposed tokens of the last draft() (trims_drafts() rows only).
  void trim_draft(std::size_t keep);
  // The tokens the last draft() returned (only next_input() for a plain sequence).
  std::span<const std::int32_t> drafted() const;
  // After the shared run that fed drafted() at row `row` of `out`: emits the verified tokens and
  // returns how many fed tokens keep their KV (1 when cancelled or done). Errors propagate.
  std::size_t verify(StepOutput& out, std::int64_t row, double run_seconds);
  // A speculative decode step in kDecode: one verification run on the sequence's own state, one or
  // more tokens emitted. Errors propagate (the engine keeps them with stop_with_error).
  void speculate();

  // Choices of one prompt (n > 1) that share this sequence's prefill: when its prompt is complete,
  // each takes a copy of its state and samples its first token from its last prompt logits, so
  // each equals generating alone. The engine starts them (take_forks, start_as_fork).
  void add_fork(std::shared_ptr<LiveSequence> fork) { forks_.push_back(std::move(fork)); }
  std::size_t fork_count() const { return forks_.size(); }
  std::vector<std::shared_ptr<LiveSequence>> take_forks() { return std::move(forks_); }
  // Starts as a fork of `parent`, whose prefill has just completed (its state holds the prompt).
  void start_as_fork(LiveSequence& parent);

  void stop_cancelled() override;
  void stop_with_error(std::exception_ptr error) override;
  void finish() override;
  std::exception_ptr error() const override { return error_; }
  GenerationResult& result() override { return result_; }
  // The state to continue (a Context's, a cached prefix); before the first prefill() only.
  void set_state(SequenceState&& state) { state_.emplace(std::move(state)); }
  bool has_state() const { return state_.has_value(); }
  SequenceState& state();
  // Prompt tokens whose KV came from the state the sequence started with (a Context or a cached
  // prefix) instead of being prefilled.
  std::size_t reused_tokens() const { return reused_; }

 private:
  void begin_prefill();
  void sample_first(StepOutput& out);
  void emit(std::span<float> raw);

  SequenceModel model_;
  ResolvedRequest request_;
  StreamCallback on_token_;
  std::optional<SequenceState> state_;  // created empty on first use
  GenerationResult result_;
  sampling::Sampler sampler_;
  OutputStream output_;
  LogprobRecorder logprobs_;
  std::unique_ptr<PromptLogprobs> prompt_logprobs_;
  std::unique_ptr<SpeculativeDecoder> speculative_;  // null: plain decoding
  std::vector<float> scratch_;
  std::vector<std::shared_ptr<LiveSequence>> forks_;
  std::vector<float> first_logits_;  // the raw last prompt row, kept for forks
  PhaseTimes times_;
  Phase phase_ = Phase::kPrefill;
  bool started_ = false;   // the first prefill() ran
  bool finished_ = false;  // finish() ran
  std::size_t fed_ = 0;    // prompt tokens whose KV the state holds
  std::size_t reused_ = 0;
  double queued_ms_ = 0;      // from construction to the first prefill
  std::int32_t pending_ = 0;  // sampled, not fed yet
  std::exception_ptr error_;
};

}  // namespace ogai::generate
