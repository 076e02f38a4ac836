#include "generate/speculative.h"

#include <algorithm>
#include <optional>

#include "base/error.h"
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

struct Verified {
  std::int64_t token = 0;
  bool accepted = false;  // token is the proposal
};

// The token the sequence continues with at one verified position (recorded in the sampler's
// history), given the proposal there (none past the last one). Greedy: the target's own choice,
// accepted when it equals the proposal, so the output is plain greedy decoding's. Sampling: the
// speculative-sampling rule for a one-hot draft, over the distribution plain sampling draws from.
Verified verify_position(sampling::Sampler& sampler, std::span<float> logits, std::optional<std::int32_t> draft) {
  if (!draft || sampler.params().greedy()) {
    const std::int64_t token = sampler.next(logits);
    return {token, draft && token == *draft};
  }
  const AcceptOutcome outcome = accept_or_resample(sampler.distribution(logits), *draft, sampler.rng());
  sampler.accept(outcome.token);
  return {outcome.token, outcome.accepted};
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
  LogprobRecorder logprobs(request.logprobs);  // from the verification rows: the same as plain decoding
  std::vector<float> scratch;
  std::vector<std::int32_t> history(result.prompt_ids.begin(), result.prompt_ids.end());
  std::vector<std::int32_t> step_tokens;
  std::int64_t row = out.logits.shape()[1] - 1;  // logits row of the last fed token
  std::int64_t token = sampler.next(logprobs.observe(out.row_logits(0, row, scratch)));
  times.first_token = Clock::now();
  bool done = output.push(token, logprobs.entry(static_cast<std::int32_t>(token)));
  while (!done) {
    history.push_back(static_cast<std::int32_t>(token));
    step_tokens.assign(1, static_cast<std::int32_t>(token));
    DraftRequest draft{history, &state.cache, drafter.needs_hidden() ? &out.hidden : nullptr, row,
                       proposal_budget(max_draft_tokens, request, output.generated(), history.size())};
    drafter.propose(draft, step_tokens);
    const std::size_t proposed = step_tokens.size() - 1;
    const std::size_t before = state.tokens.size();
    // Recurrent state cannot rewind: keep a snapshot to restore and replay the accepted tokens.
    std::optional<SequenceState> snapshot;
    if (proposed > 0 && !state.cache.rewinds_freely()) snapshot = state.copy();
    out = feed(model.decoder, state, step_tokens, 0, times.run_seconds);
    result.draft_tokens += static_cast<int>(proposed);
    // Keep proposals while the target accepts them; the first rejection (or the position after
    // the last proposal) gives the target's own token.
    for (row = 0;; ++row) {
      std::optional<std::int32_t> draft;
      if (static_cast<std::size_t>(row) < proposed) draft = step_tokens[row + 1];
      const Verified verified = verify_position(sampler, logprobs.observe(out.row_logits(0, row, scratch)), draft);
      token = verified.token;
      done = output.push(token, logprobs.entry(static_cast<std::int32_t>(token)));
      if (done || !verified.accepted) break;
      ++result.accepted_draft_tokens;
      history.push_back(static_cast<std::int32_t>(token));
    }
    const std::size_t kept = before + static_cast<std::size_t>(row) + 1;
    if (!snapshot || kept == state.tokens.size()) {
      truncate_state(state, kept);
    } else {  // restore, then replay what was accepted (its last row seeds the next carry)
      state = std::move(*snapshot);
      out = feed(model.decoder, state, std::span(step_tokens).first(static_cast<std::size_t>(row) + 1), 0,
                 times.run_seconds);
      row = out.logits.shape()[1] - 1;
    }
  }
  output.finish();
  times.end = Clock::now();
  fill_timings(result, times);
  return result;
}

}  // namespace ogai::generate
