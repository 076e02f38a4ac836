#include "sampling/penalties.h"

namespace ogai::sampling {

void apply_logit_bias(std::span<float> logits, std::span<const std::pair<TokenId, float>> bias) {
  for (const auto& [id, value] : bias) logits[id] += value;
}

void apply_repetition_penalty(std::span<float> logits, const TokenHistory& history, float penalty) {
  for (int32_t id : history.seen_ids()) {
    float& x = logits[id];
    x = x < 0.0f ? x * penalty : x / penalty;
  }
}

void apply_frequency_presence(std::span<float> logits, const TokenHistory& history, float frequency, float presence) {
  for (int32_t id : history.generated_ids()) {
    float& x = logits[id];
    x -= frequency * static_cast<float>(history.generated_count(id));
    x -= presence;
  }
}

}  // namespace ogai::sampling
