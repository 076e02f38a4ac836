#include "generate/sequence.h"

#include <algorithm>
#include <chrono>

#include "base/error.h"
#include "generate/text_stream.h"
#include "sampling/sampler.h"

namespace ogai::generate {
namespace {

using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The prompt as it will be fed: checked against the context, truncated from the front if asked.
std::vector<std::int32_t> fit_prompt(std::span<const std::int32_t> prompt, const ResolvedRequest& request) {
  if (prompt.empty()) fail(ErrorCode::kInvalidArgument, "prompt", "the prompt has no tokens");
  std::vector<std::int32_t> ids(prompt.begin(), prompt.end());
  const auto& limit = request.stop.context_limit;
  if (limit && static_cast<std::int64_t>(ids.size()) >= *limit) {
    if (!request.truncate_prompt)
      fail(ErrorCode::kInvalidArgument, "prompt",
           "{} tokens leave no room in the model's context of {} positions (ask to truncate the prompt to keep its end)",
           ids.size(), *limit);
    ids.erase(ids.begin(), ids.end() - (*limit - 1));
  }
  request.stop.check_prompt(static_cast<std::int64_t>(ids.size()));
  return ids;
}

// Rewinds the state to the longest prefix it shares with `prompt`, keeping at least one prompt
// token to feed (its logits start generation). Returns the number of tokens kept.
std::size_t reuse_prefix(SequenceState& state, std::span<const std::int32_t> prompt) {
  auto mismatch = std::mismatch(state.tokens.begin(), state.tokens.end(), prompt.begin(), prompt.end());
  std::size_t common = std::min<std::size_t>(mismatch.first - state.tokens.begin(), prompt.size() - 1);
  if (common < state.tokens.size()) {
    state.cache.rewind(static_cast<std::int64_t>(common));
    state.attention.truncate(static_cast<std::int64_t>(common));
    state.tokens.resize(common);
  }
  return common;
}

// Feeds tokens (in chunks of at most `chunk`, 0 = all) and returns the last step's output.
StepOutput feed(const Decoder& decoder, SequenceState& state, std::span<const std::int32_t> tokens, int chunk,
                double& run_seconds) {
  std::vector<std::int64_t> ids(tokens.begin(), tokens.end());
  std::size_t step = chunk > 0 ? static_cast<std::size_t>(chunk) : ids.size();
  StepOutput out;
  for (std::size_t begin = 0; begin < ids.size(); begin += step) {
    std::size_t n = std::min(step, ids.size() - begin);
    out = decoder.step(std::span<const std::int64_t>(ids).subspan(begin, n), static_cast<std::int64_t>(n), {},
                       state.attention, state.cache);
    run_seconds += out.run_seconds;
    state.tokens.insert(state.tokens.end(), tokens.begin() + begin, tokens.begin() + begin + n);
  }
  return out;
}

bool is_stop_token(const ResolvedRequest& request, std::int64_t token) {
  return std::find(request.stop_token_ids.begin(), request.stop_token_ids.end(), token) != request.stop_token_ids.end();
}

FinishReason to_public(sampling::FinishReason reason) {
  switch (reason) {
    case sampling::FinishReason::kStop: return FinishReason::kStop;
    case sampling::FinishReason::kEos: return FinishReason::kEos;
    case sampling::FinishReason::kCancelled: return FinishReason::kCancelled;
    default: return FinishReason::kLength;
  }
}

}  // namespace

GenerationResult generate_sequence(const SequenceModel& model, const ResolvedRequest& request,
                                   std::span<const std::int32_t> prompt, SequenceState& state,
                                   const StreamCallback& on_token) {
  const auto start = Clock::now();
  GenerationResult result;
  result.prompt_ids = fit_prompt(prompt, request);
  double run_seconds = 0;
  std::size_t kept = reuse_prefix(state, result.prompt_ids);
  StepOutput out = feed(model.decoder, state, std::span(result.prompt_ids).subspan(kept), request.prefill_chunk,
                        run_seconds);
  const auto prefilled = Clock::now();
  std::int64_t position = out.logits.shape()[1] - 1;  // the last prompt token's logits

  sampling::Sampler sampler(request.sampling, model.decoder.spec().vocab_size > 0 ? model.decoder.spec().vocab_size
                                                                                   : out.logits.shape()[2]);
  std::vector<std::int64_t> history(result.prompt_ids.begin(), result.prompt_ids.end());
  sampler.reset(history);
  TextStream text(model.tokenizer, request.stop_strings);
  std::vector<float> scratch;
  Clock::time_point first_token;
  sampling::FinishReason reason = sampling::FinishReason::kNone;
  while (reason == sampling::FinishReason::kNone) {
    const std::int64_t token = sampler.next(out.row_logits(0, position, scratch));
    if (result.ids.empty()) first_token = Clock::now();
    result.ids.push_back(static_cast<std::int32_t>(token));
    const bool ends = request.stop.is_eos(token) || is_stop_token(request, token);
    std::string_view piece = ends ? std::string_view() : text.push(static_cast<std::int32_t>(token));
    const bool cancelled = on_token && !on_token(StreamEvent{static_cast<std::int32_t>(token), piece});
    reason = request.stop.check(token, static_cast<std::int64_t>(result.ids.size()),
                                static_cast<std::int64_t>(result.prompt_ids.size() + result.ids.size()), cancelled,
                                text.stopped() || is_stop_token(request, token));
    if (reason != sampling::FinishReason::kNone) break;
    std::int32_t next = static_cast<std::int32_t>(token);
    out = feed(model.decoder, state, std::span(&next, 1), 0, run_seconds);
    position = 0;
  }
  std::string_view tail = text.finish();
  if (!tail.empty() && on_token) on_token(StreamEvent{result.ids.back(), tail});
  const auto end = Clock::now();

  result.text = text.text();
  result.finish_reason = to_public(reason);
  Timings& t = result.timings;
  t.prefill_ms = ms_between(start, prefilled);
  t.ttft_ms = ms_between(start, first_token);
  t.decode_ms = ms_between(first_token, end);
  t.decode_tok_s = result.ids.size() > 1 && t.decode_ms > 0 ? (result.ids.size() - 1) / (t.decode_ms / 1e3) : 0;
  t.onnxruntime_ms = run_seconds * 1e3;
  t.runtime_ms = ms_between(start, end) - t.onnxruntime_ms;
  return result;
}

}  // namespace ogai::generate
