// The steps every single-sequence decode loop shares (plain and speculative): fitting the prompt
// to the context, reusing the prefix a SequenceState already holds, feeding tokens to the
// decoder, and filling the timings.
#pragma once

#include <chrono>
#include <functional>
#include <span>
#include <vector>

#include "generate/prompt_media.h"
#include "generate/sequence.h"

namespace ogai::generate {

using Clock = std::chrono::steady_clock;

// The prompt as it will be fed: checked against the context; when truncation is asked, its end is
// kept, leaving room for max_new_tokens (at least one token).
std::vector<TokenId> fit_prompt(std::span<const TokenId> prompt, const ResolvedRequest& request);

// Rewinds the state to the longest prefix it shares with `prompt`, keeping at least one prompt
// token to feed (its logits start generation); state that cannot rewind there (recurrent) starts
// over. Returns the number of tokens kept.
// Media spans count (media_marks.h): a span the state and the prompt do not share ends the prefix.
std::size_t reuse_prefix(SequenceState& state, std::span<const TokenId> prompt, const MediaMarks& prompt_media = {});

// Called with each step's output and the range of `tokens` that step fed: [begin, begin + n).
using StepHook = std::function<void(StepOutput& out, std::size_t begin, std::size_t n)>;

// Which logits a feed needs: every fed position's (prompt log-probabilities, verification), or the
// last position's only (a prompt before its first token; earlier chunks then ask for one row).
enum class Logits { kAll, kLast };

// Feeds tokens (in chunks of at most `chunk`, 0 = all) and returns the last step's output;
// adds the time spent inside ONNX Runtime to `run_seconds`. `on_step` (may be empty) sees every step.
// `media` (may be null): the prompt's media; `tokens` start at prompt position
// state.tokens.size(), and each chunk gets the feature rows of its positions.
StepOutput feed(const Decoder& decoder, SequenceState& state, std::span<const TokenId> tokens, int chunk,
                double& run_seconds, const StepHook& on_step = {}, const PromptMedia* media = nullptr, Logits logits = Logits::kAll);

// Keeps the first `length` positions of the state (KV, attention rows and tokens).
void truncate_state(SequenceState& state, std::size_t length);

struct PhaseTimes {
  Clock::time_point start, prefilled, first_token, end;
  double run_seconds = 0;  // inside ONNX Runtime
};
void fill_timings(GenerationResult& result, const PhaseTimes& times);

}  // namespace ogai::generate
