// LiveSequence: one generation as a resumable object that an engine (engine.h) drives a step at
// a time. Every way ogai generates (Model::generate with or without a Context, generate_batch,
// ogai::Engine and the server, plain or speculative) runs through it; make_sequence
// (sequence_factory.h) is the one place that creates one.
//   1. prefill(budget): the prompt (fitted to the context when constructed) is fed in chunks on
//      the sequence's own batch-1 state, after keeping the prefix that state already holds; once
//      the whole prompt is in, the first token is sampled from the last prompt position;
//   2. decode: the engine feeds drafted() together with other rows and hands this row's logits
//      to decode(), which samples the next token, streams its text and applies the stop rules.
//      A speculative sequence's steps are its Speculative facet (speculation()): draft / verify
//      as a row of the engine's shared run, or speculate() on its own state (speculative.h);
//   3. when done(), finish() ends the text stream and fills the result (once).
// The state (KV cache, tokens) is the sequence's own during prefill, while it decodes
// speculatively and after it leaves a batch; while it decodes in a batch, the engine holds its KV
// (state().cache is then empty).
// Errors of the sequence's own steps are kept (error()) rather than thrown, so one failing
// request never ends the others in a batch.
// Thread safety: cancel() and cancelled() from any thread; sample() from a worker of the engine's
// (one thread per sequence at a time, while the engine waits); everything else from the engine's.
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
#include "ogai/token_id.h"
#include "sampling/sampler.h"

namespace ogai::generate {

class LiveSequence;

// What a new sequence starts from; make_sequence() (sequence_factory.h) fills it.
struct SequenceStart {
  const SequenceModel& model;
  const ResolvedRequest& request;           // copied
  std::span<const TokenId> prompt;          // copied (fitted to the context)
  StreamCallback on_token = {};             // may be empty
  Speculation speculation = {};             // no drafter: plain decoding
  std::optional<SequenceState> state = {};  // the state to continue (a Context's); empty: a new one
};

// Only make_sequence() can make this key, so it is the one place a LiveSequence is constructed.
class SequenceKey {
  SequenceKey() = default;
  friend std::shared_ptr<LiveSequence> make_sequence(SequenceStart start);
};

class LiveSequence : public Generation {
 public:
  enum class Phase { kPrefill, kDecode, kDone };
  class Speculative;

  // Throws ogai::Error for a prompt that does not fit (unless truncation was asked), invalid
  // sampling values, or (kUnsupported) a speculation the request cannot use (prompt logprobs,
  // prefill only).
  LiveSequence(SequenceKey, SequenceStart start);
  ~LiveSequence() override;
  LiveSequence(const LiveSequence&) = delete;
  LiveSequence& operator=(const LiveSequence&) = delete;

  Phase phase() const { return phase_; }
  bool done() const override { return phase_ == Phase::kDone; }
  // The prompt as it will be fed (after truncation).
  std::span<const TokenId> prompt() const { return result_.prompt_ids; }
  // Where the prompt's media sit (empty without media): prefix reuse must match them too.
  const MediaMarks& prompt_media() const;
  // The most positions the sequence can reach: prompt + max_new_tokens, within the context.
  std::int64_t max_positions() const;
  // Prompt tokens not fed yet (before the first prefill(): those beyond the kept prefix).
  std::size_t prefill_remaining() const;
  // Whether the sequence's state may be replaced by a cached prefix before its first prefill.
  bool accepts_cached_prefix() const { return phase_ == Phase::kPrefill && !started_ && !request_.prompt_logprobs; }

  // Feeds up to `budget` (>= 1) prompt tokens; once the prompt is complete, samples the first
  // token (the phase becomes kDecode, or kDone when that token ends the sequence).
  void prefill(std::size_t budget);
  // The tokens the next decode step feeds: the pending (sampled, not fed) token, then for a
  // speculative row the proposal of its last Speculative::draft() (as trimmed).
  std::span<const TokenId> drafted() const;
  // After a decode step that fed the pending token: row `row` of `out` holds its logits. Samples,
  // streams and checks the stop rules. `run_seconds` is the step's time inside ONNX Runtime.
  void decode(StepOutput& out, std::int64_t row, double run_seconds);
  // decode() in two halves, for an engine that samples its rows in parallel: sample() touches only
  // this sequence's own state (sampler, logprobs, its KV bookkeeping) and may run on any thread,
  // concurrently with other sequences' sample(); publish() streams the token and checks the stop
  // rules (it calls the stream callback) and runs on the engine's thread, rows in order.
  void sample(StepOutput& out, std::int64_t row, double run_seconds);
  void publish();

  // The speculative steps; null for a plain sequence.
  Speculative* speculation() { return speculative_.get(); }
  const Speculative* speculation() const { return speculative_.get(); }

  // Choices of one prompt (n > 1) that share this sequence's prefill: when its prompt is complete,
  // each takes a copy of its state and samples its first token from its last prompt logits, so
  // each equals generating alone. The engine takes them (std::exchange) and starts each with
  // start_as_fork().
  std::vector<std::shared_ptr<LiveSequence>>& forks() { return forks_; }
  // Starts as a fork of `parent`, whose prefill has just completed (its state holds the prompt).
  void start_as_fork(LiveSequence& parent);

  void stop_cancelled() override;
  void stop_with_error(std::exception_ptr error) override;
  void finish() override;
  std::exception_ptr error() const override { return error_; }
  GenerationResult& result() override { return result_; }
  // The sequence's state, created empty on first use.
  SequenceState& state();
  bool has_state() const { return state_.has_value(); }

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
  std::unique_ptr<Speculative> speculative_;  // null: plain decoding
  std::vector<float> scratch_;
  std::vector<std::shared_ptr<LiveSequence>> forks_;
  std::vector<float> first_logits_;  // the raw last prompt row, kept for forks
  PhaseTimes times_;
  Phase phase_ = Phase::kPrefill;
  bool started_ = false;    // the first prefill() ran
  bool finished_ = false;   // finish() ran
  std::size_t fed_ = 0;     // prompt tokens whose KV the state holds
  std::size_t reused_ = 0;  // of them, from the state the sequence started with (a Context, a cached prefix)
  double queued_ms_ = 0;    // from construction to the first prefill
  TokenId pending_ = 0;     // sampled, not fed yet
  bool sampled_ = false;    // sample() drew pending_ and publish() has not streamed it yet
  std::exception_ptr error_;
};

// The speculative steps of one LiveSequence (speculative.h has the algorithm), what the engine
// calls for a sequence whose speculation() is set. Owned by its sequence, the engine's thread only.
class LiveSequence::Speculative {
 public:
  Speculative(LiveSequence& sequence, Speculation speculation);

  // Whether its drafter proposes from the tokens alone (no target KV or hidden state), so that the
  // sequence can verify as a row of a shared batch (draft() / verify()).
  bool drafts_from_tokens() const;
  // A batched step, before the shared run: the tokens to feed (the pending token then at most
  // `limit` proposed tokens; LiveSequence::drafted() until the next draft()). Drafter errors
  // propagate.
  std::span<const TokenId> draft(int limit);
  // Whether the engine may verify fewer tokens than draft() proposed (greedy: the output does not
  // depend on it; a seeded sampled sequence's sample path does), and the row's acceptance average.
  bool trims_drafts() const;
  double acceptance() const;
  // Keeps the first `keep` proposed tokens of the last draft() (trims_drafts() rows only).
  void trim_draft(std::size_t keep);
  // After the shared run that fed drafted() at row `row` of `out`: emits the verified tokens and
  // returns how many fed tokens keep their KV (1 when cancelled or done). Errors propagate.
  std::size_t verify(StepOutput& out, std::int64_t row, double run_seconds);
  // A step in kDecode on the sequence's own state: one verification run, one or more tokens
  // emitted. Errors propagate (the engine keeps them with stop_with_error).
  void speculate();

 private:
  friend class LiveSequence;
  LiveSequence& sequence_;
  SpeculativeDecoder decoder_;
};

}  // namespace ogai::generate
