#include "generate/sequence_steps.h"

#include <algorithm>
#include <optional>

#include "base/error.h"

namespace ogai::generate {
namespace {

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

std::vector<TokenId> fit_prompt(std::span<const TokenId> prompt, const ResolvedRequest& request) {
  if (prompt.empty()) fail(ErrorCode::kInvalidArgument, "prompt", "the prompt has no tokens");
  std::vector<TokenId> ids(prompt.begin(), prompt.end());
  const auto& limit = request.stop.context_limit;
  if (limit && static_cast<std::int64_t>(ids.size()) >= *limit) {
    if (!request.truncate_prompt || request.media)
      fail(ErrorCode::kInvalidArgument, "prompt",
           "{} tokens leave no room in the model's context of {} positions (truncate_prompt, or the CLI's "
           "--truncate-prompt, keeps the prompt's end{})",
           ids.size(), *limit, request.media ? "; not for a prompt with media, whose spans it would cut" : "");
    // Keep the prompt's end, leaving room for max_new_tokens (or at least one token).
    const std::int64_t room = std::clamp<std::int64_t>(request.stop.max_new_tokens.value_or(1), 1, *limit - 1);
    ids.erase(ids.begin(), ids.end() - (*limit - room));
  }
  request.stop.check_prompt(static_cast<std::int64_t>(ids.size()));
  return ids;
}

void truncate_state(SequenceState& state, std::size_t length) {
  if (length >= state.tokens.size()) return;
  state.cache.rewind(static_cast<std::int64_t>(length));
  state.attention.truncate(static_cast<std::int64_t>(length));
  state.tokens.resize(length);
  keep_marks(state.media, length);
}

std::size_t reuse_prefix(SequenceState& state, std::span<const TokenId> prompt, const MediaMarks& prompt_media) {
  std::size_t common =
      std::min<std::size_t>(common_media_prefix(state.tokens, state.media, prompt, prompt_media), prompt.size() - 1);
  if (!state.cache.can_rewind(static_cast<std::int64_t>(common))) common = 0;  // recurrent state: start over
  truncate_state(state, common);
  return common;
}

StepOutput feed(const Decoder& decoder, SequenceState& state, std::span<const TokenId> tokens, int chunk,
                double& run_seconds, const StepHook& on_step, const PromptMedia* media, Logits logits) {
  const std::size_t step = chunk > 0 ? static_cast<std::size_t>(chunk) : tokens.size();
  const std::int64_t keep = logits == Logits::kLast ? 1 : Decoder::kAllLogits;
  StepOutput out;
  // 3-D positions: the prompt's table, built with its media (none for a text-only prompt, whose
  // positions are plain; a reused prefix never reaches past the first media span it does not share).
  if (decoder.spec().mrope) state.attention.set_mrope(0, media ? media->mrope : nullptr);
  for (std::size_t begin = 0; begin < tokens.size(); begin += step) {
    const std::size_t n = std::min(step, tokens.size() - begin);
    const std::size_t at = state.tokens.size();  // the chunk's first prompt position
    std::optional<FeatureRows> rows;
    if (media && decoder.embedding()) rows = media->rows(at, at + n, decoder.embedding()->ports());
    out = decoder.step(tokens.subspan(begin, n), static_cast<std::int64_t>(n), {}, state.attention, state.cache,
                       rows ? &*rows : nullptr, keep, state.cross.get());
    if (media) add_marks(state.media, media->marks, at, at + n);
    run_seconds += out.run_seconds;
    if (on_step) on_step(out, begin, n);
    state.tokens.insert(state.tokens.end(), tokens.begin() + begin, tokens.begin() + begin + n);
  }
  return out;
}

void fill_timings(GenerationResult& result, const PhaseTimes& times) {
  Timings& t = result.timings;
  t.prefill_ms = ms_between(times.start, times.prefilled);
  t.ttft_ms = ms_between(times.start, times.first_token);
  t.decode_ms = ms_between(times.first_token, times.end);
  t.decode_tok_s = result.ids.size() > 1 && t.decode_ms > 0 ? (result.ids.size() - 1) / (t.decode_ms / 1e3) : 0;
  t.onnxruntime_ms = times.run_seconds * 1e3;
  t.runtime_ms = ms_between(times.start, times.end) - t.onnxruntime_ms;
}

}  // namespace ogai::generate
