#include "generate/speculative.h"

#include <algorithm>
#include <vector>
#include <optional>

#include "generate/output_stream.h"
#include "generate/sequence_steps.h"
#include "generate/speculative_accept.h"
#include "generate/token_logprobs.h"
#include "sampling/sampler.h"

namespace ogai::generate {
namespace {

// How many tokens the next proposal may hold: the drafter's limit, what the request may still
// generate after the pending token, and the room left in the context.
int proposal_budget(int max_draft, const ResolvedRequest& request, std::size_t generated, std::size_t total) {
  std::int64_t budget = max_draft;
  if (request.stop.max_new_tokens) budget = std::min<std::int64_t>(budget, *request.stop.max_new_tokens - generated - 1);
  if (request.stop.context_limit) budget = std::min<std::int64_t>(budget, *request.stop.context_limit - total - 1);
  return static_cast<int>(std::max<std::int64_t>(budget, 0));
}

// Chooses and emits the tokens of one request from logits rows: the sampler (whose history
// follows the emitted tokens), the logprob recorder (fed the verification rows: the values plain
// decoding reports) and the output stream. Tracks the pending token and the committed history.
class Verifier {
 public:
  Verifier(sampling::Sampler& sampler, LogprobRecorder& logprobs, OutputStream& output, GenerationResult& result)
      : sampler_(sampler), logprobs_(logprobs), output_(output), result_(result),
        history_(result.prompt_ids.begin(), result.prompt_ids.end()) {}

  // Emits the token chosen at `row` of `out` with no proposal there; returns whether it ends.
  bool emit_plain(StepOutput& out, std::int64_t row) { return emit(out, row, std::nullopt).done; }

  // Emits the verified tokens of a step that fed `step_tokens` (pending token + proposal):
  // proposals while accepted, then the target's own token. Returns the last row used.
  std::int64_t emit_verified(StepOutput& out, std::span<const std::int32_t> step_tokens) {
    const std::size_t proposed = step_tokens.size() - 1;
    for (std::int64_t row = 0;; ++row) {
      std::optional<std::int32_t> draft;
      if (static_cast<std::size_t>(row) < proposed) draft = step_tokens[static_cast<std::size_t>(row) + 1];
      const Emitted emitted = emit(out, row, draft);
      if (emitted.done || !emitted.accepted) return row;
      ++result_.accepted_draft_tokens;
      history_.push_back(pending_);
    }
  }

  // Commits the pending token to the history; returns it.
  std::int32_t commit_pending() {
    history_.push_back(pending_);
    return pending_;
  }
  std::span<const std::int32_t> history() const { return history_; }
  bool done() const { return done_; }

 private:
  struct Emitted {
    bool done = false;
    bool accepted = false;  // the token is the proposal
  };

  // The token at one position given the proposal there (none past the last one), recorded in the
  // sampler's history and emitted. Greedy: the target's own choice, accepted when it equals the
  // proposal, so the output is plain greedy decoding's. Sampling: the speculative-sampling rule
  // for a one-hot draft over the distribution plain sampling draws from.
  Emitted emit(StepOutput& out, std::int64_t row, std::optional<std::int32_t> draft) {
    std::span<float> logits = logprobs_.observe(out.row_logits(0, row, scratch_));
    bool accepted = false;
    if (!draft || sampler_.params().greedy()) {
      pending_ = static_cast<std::int32_t>(sampler_.next(logits));
      accepted = draft && pending_ == *draft;
    } else {
      const AcceptOutcome outcome = accept_or_resample(sampler_.distribution(logits), *draft, sampler_.rng());
      sampler_.accept(outcome.token);
      pending_ = outcome.token;
      accepted = outcome.accepted;
    }
    done_ = output_.push(pending_, logprobs_.entry(pending_));
    return {done_, accepted};
  }

  sampling::Sampler& sampler_;
  LogprobRecorder& logprobs_;
  OutputStream& output_;
  GenerationResult& result_;
  std::vector<std::int32_t> history_;  // committed tokens (prompt + generated before the pending one)
  std::vector<float> scratch_;
  std::int32_t pending_ = 0;  // the last emitted token, not yet fed to the target
  bool done_ = false;
};

// Keeps `used`, the first tokens fed by the last step (which started at `before` tokens): truncates
// the KV of the others or, with a snapshot from before the step (recurrent state), restores it and
// replays `used` (its last row seeds the next carry). Returns the row of `out` of the last kept token.
std::int64_t keep_fed(const SequenceModel& model, SequenceState& state, std::optional<SequenceState>& snapshot,
                      std::size_t before, std::span<const std::int32_t> used, StepOutput& out, double& run_seconds) {
  const std::size_t kept = before + used.size();
  if (!snapshot || kept == state.tokens.size()) {
    truncate_state(state, kept);
    return static_cast<std::int64_t>(used.size()) - 1;
  }
  state = std::move(*snapshot);
  out = feed(model.decoder, state, used, 0, run_seconds);
  return out.logits.shape()[1] - 1;
}

}  // namespace

GenerationResult generate_speculative(const SequenceModel& model, const Drafter& drafter, int max_draft_tokens,
                                      const ResolvedRequest& request, std::span<const std::int32_t> prompt,
                                      SequenceState& state, const StreamCallback& on_token) {
  PhaseTimes times;
  times.start = Clock::now();
  GenerationResult result;
  result.prompt_ids = fit_prompt(prompt, request);
  const std::size_t kept = reuse_prefix(state, result.prompt_ids);
  StepOutput out = feed(model.decoder, state, std::span(result.prompt_ids).subspan(kept), request.prefill_chunk,
                        times.run_seconds);
  times.prefilled = Clock::now();

  sampling::Sampler sampler(request.sampling, model.decoder.spec().vocab_size);
  std::vector<std::int64_t> prompt64(result.prompt_ids.begin(), result.prompt_ids.end());
  sampler.reset(prompt64);
  OutputStream output(model.tokenizer, request, on_token, result);
  LogprobRecorder logprobs(request.logprobs);
  Verifier verifier(sampler, logprobs, output, result);
  std::int64_t row = out.logits.shape()[1] - 1;  // logits row of the last fed token
  verifier.emit_plain(out, row);
  times.first_token = Clock::now();
  std::vector<std::int32_t> step_tokens;
  while (!verifier.done()) {
    step_tokens.assign(1, verifier.commit_pending());
    DraftRequest draft{verifier.history(), &state.cache, drafter.needs_hidden() ? &out.hidden : nullptr, row,
                       proposal_budget(max_draft_tokens, request, output.generated(), verifier.history().size())};
    drafter.propose(draft, step_tokens);
    const std::size_t before = state.tokens.size();
    // Recurrent state cannot rewind: keep a snapshot to restore and replay the accepted tokens.
    std::optional<SequenceState> snapshot;
    if (step_tokens.size() > 1 && !state.cache.rewinds_freely()) snapshot = state.copy();
    out = feed(model.decoder, state, step_tokens, 0, times.run_seconds);
    result.draft_tokens += static_cast<int>(step_tokens.size() - 1);
    row = verifier.emit_verified(out, step_tokens);
    const std::span<const std::int32_t> used = std::span(step_tokens).first(static_cast<std::size_t>(row) + 1);
    row = keep_fed(model, state, snapshot, before, used, out, times.run_seconds);
  }
  output.finish();
  times.end = Clock::now();
  fill_timings(result, times);
  return result;
}

}  // namespace ogai::generate
