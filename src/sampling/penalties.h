// Logits processors that adjust a few logits in place: logit bias, HF repetition penalty, OpenAI
// frequency and presence penalties. Each touches only the ids it names (O(distinct ids)), never
// scans the vocabulary, and allocates nothing. Arithmetic is float32 with the parameter rounded to
// float32, as PyTorch does for a float32 logits tensor and a Python scalar.
//
// Preconditions (checked by Sampler, not here): logits.size() == history.vocab_size() and every
// bias id < logits.size().
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "sampling/token_history.h"

namespace ogai::sampling {

// logits[id] += bias for each (id, bias) (OpenAI logit_bias).
void apply_logit_bias(std::span<float> logits, std::span<const std::pair<TokenId, float>> bias);

// HF RepetitionPenaltyLogitsProcessor: for every distinct id of prompt + generated text,
// logits[id] = logits[id] < 0 ? logits[id] * penalty : logits[id] / penalty. Applied once per
// distinct id, however often it occurs.
void apply_repetition_penalty(std::span<float> logits, const TokenHistory& history, float penalty);

// OpenAI frequency/presence penalties over generated tokens only (vLLM's definition):
// logits[id] -= frequency * count(id); then logits[id] -= presence for every generated id.
void apply_frequency_presence(std::span<float> logits, const TokenHistory& history, float frequency, float presence);

}  // namespace ogai::sampling
