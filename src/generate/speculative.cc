#include "generate/speculative.h"

#include <algorithm>

#include "base/error.h"
#include "generate/sequence_steps.h"
#include "generate/speculative_accept.h"

namespace ogai::generate {
namespace {

// Keeps `used`, the first tokens fed by the last run (which started at `before` tokens): truncates
// the KV of the others or, with a snapshot from before the run (recurrent state), restores it and
// replays `used` (its last row seeds the next carry). Returns the row of `out` of the last kept token.
std::int64_t keep_fed(const SequenceModel& model, SequenceState& state, std::optional<SequenceState>& snapshot,
                      std::size_t before, std::span<const TokenId> used, StepOutput& out, double& run_seconds) {
  const std::size_t kept = before + used.size();
  if (!snapshot || kept == state.tokens.size()) {
    truncate_state(state, kept);
    return static_cast<std::int64_t>(used.size()) - 1;
  }
  state = std::move(*snapshot);
  out = feed(model.decoder, state, used, 0, run_seconds, {}, nullptr, Logits::kLast);  // for its hidden state
  return out.last_position();
}

}  // namespace

SpeculativeDecoder::SpeculativeDecoder(const SequenceModel& model, Speculation speculation,
                                       const ResolvedRequest& request, sampling::Sampler& sampler,
                                       LogprobRecorder& logprobs, OutputStream& output, GenerationResult& result)
    : model_(model),
      speculation_(std::move(speculation)),
      request_(request),
      sampler_(sampler),
      logprobs_(logprobs),
      output_(output),
      result_(result) {
  if (!speculation_.drafter) fail(ErrorCode::kInternal, "speculative", "no drafter");
  if (speculation_.max_draft_tokens < 1)
    fail(ErrorCode::kInvalidArgument, "max_draft_tokens", "{} must be at least 1", speculation_.max_draft_tokens);
}

void SpeculativeDecoder::start(StepOutput& out, std::int64_t position) {
  hidden_ = std::move(out.hidden);
  hidden_row_ = position;
}

void SpeculativeDecoder::start_as_copy(const SpeculativeDecoder& parent) {
  hidden_ = parent.hidden_.empty() ? ort::Tensor() : ort::Tensor::copy_of(parent.hidden_);
  hidden_row_ = parent.hidden_row_;
}

// How many tokens the next proposal may hold: the drafter's limit, what the request may still
// generate after the pending token, and the room left in the context.
int SpeculativeDecoder::proposal_budget() const {
  const auto generated = static_cast<std::int64_t>(output_.generated());
  const auto total = static_cast<std::int64_t>(history_.size());
  std::int64_t budget = speculation_.max_draft_tokens;
  if (request_.stop.max_new_tokens)
    budget = std::min<std::int64_t>(budget, *request_.stop.max_new_tokens - generated - 1);
  if (request_.stop.context_limit) budget = std::min<std::int64_t>(budget, *request_.stop.context_limit - total - 1);
  return static_cast<int>(std::max<std::int64_t>(budget, 0));
}

std::span<const TokenId> SpeculativeDecoder::propose(std::span<const TokenId> tokens, const kv::KvCache* cache,
                                                     TokenId pending, int limit) {
  history_.assign(tokens.begin(), tokens.end());
  history_.push_back(pending);
  step_tokens_.assign(1, pending);
  shadow_.reset();
  const int budget = std::min(proposal_budget(), limit);
  if (budget <= 0 || !gate_.drafting()) return step_tokens_;
  const Drafter& drafter = *speculation_.drafter;
  const bool hidden = drafter.needs_hidden() && !hidden_.empty();
  DraftRequest draft{history_, cache, hidden ? &hidden_ : nullptr, hidden_row_, budget};
  drafter.propose(draft, step_tokens_);
  if (static_cast<int>(step_tokens_.size()) > budget + 1) step_tokens_.resize(static_cast<std::size_t>(budget) + 1);
  return step_tokens_;
}

bool SpeculativeDecoder::verify(StepOutput& out, std::int64_t row, TokenId& pending, std::size_t& kept) {
  const int proposed = static_cast<int>(step_tokens_.size()) - 1;
  result_.draft_tokens += proposed;
  const int accepted_before = result_.accepted_draft_tokens;
  bool done = false;
  kept = static_cast<std::size_t>(emit_verified(out, row, pending, done)) + 1;
  observe_plain(pending);
  gate_.record(proposed, result_.accepted_draft_tokens - accepted_before);
  return done;
}

void SpeculativeDecoder::trim(std::size_t keep) {
  if (step_tokens_.size() <= keep + 1) return;
  if (keep == 0) shadow_ = step_tokens_[1];
  step_tokens_.resize(keep + 1);
}

void SpeculativeDecoder::observe_plain(TokenId token) {
  if (!shadow_) return;
  gate_.record(1, token == *shadow_ ? 1 : 0);
  shadow_.reset();
}

bool SpeculativeDecoder::step(SequenceState& state, TokenId& pending, double& run_seconds) {
  propose(state.tokens, &state.cache, pending, speculation_.max_draft_tokens);
  const std::size_t before = state.tokens.size();
  std::optional<SequenceState> snapshot;  // recurrent state cannot rewind: restore and replay
  if (step_tokens_.size() > 1 && !state.cache.rewinds_freely()) snapshot = state.copy();
  StepOutput out = feed(model_.decoder, state, step_tokens_, 0, run_seconds);
  std::size_t kept = 1;
  const bool done = verify(out, 0, pending, kept);
  const auto used = std::span<const TokenId>(step_tokens_).first(kept);
  hidden_row_ = keep_fed(model_, state, snapshot, before, used, out, run_seconds);
  hidden_ = std::move(out.hidden);
  return done;
}

// Emits the verified tokens of a run that fed step_tokens_ (pending token + proposal) at row `row`:
// proposals while accepted, then the target's own token. Returns the last position of the row used.
std::int64_t SpeculativeDecoder::emit_verified(StepOutput& out, std::int64_t row, TokenId& pending, bool& done) {
  const std::size_t proposed = step_tokens_.size() - 1;
  for (std::int64_t at = 0;; ++at) {
    std::optional<TokenId> draft;
    if (static_cast<std::size_t>(at) < proposed) draft = step_tokens_[static_cast<std::size_t>(at) + 1];
    const Emitted emitted = emit(out, row, at, draft, pending);
    done = emitted.done;
    if (emitted.done || !emitted.accepted) return at;
    ++result_.accepted_draft_tokens;
  }
}

// The token at one position given the proposal there (none past the last one), recorded in the
// sampler's history and emitted. Greedy: the target's own choice, accepted when it equals the
// proposal, so the output is plain greedy decoding's. Sampling: the speculative-sampling rule
// for a one-hot draft over the distribution plain sampling draws from.
SpeculativeDecoder::Emitted SpeculativeDecoder::emit(StepOutput& out, std::int64_t row, std::int64_t at,
                                                     std::optional<TokenId> draft, TokenId& pending) {
  std::span<float> logits = logprobs_.observe(out.row_logits(row, at, scratch_));
  bool accepted = false;
  if (!draft || sampler_.params().greedy()) {
    pending = static_cast<TokenId>(sampler_.next(logits));
    accepted = draft && pending == *draft;
  } else {
    const AcceptOutcome outcome = accept_or_resample(sampler_.distribution(logits), *draft, sampler_.rng());
    sampler_.accept(outcome.token);
    pending = outcome.token;
    accepted = outcome.accepted;
  }
  return {output_.push(pending, logprobs_.entry(pending)), accepted};
}

}  // namespace ogai::generate
