#include "sampling/stop_checker.h"

#include <algorithm>

#include "base/error.h"

namespace ogai {

const char* finish_reason_name(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kEos:
      return "eos";
    case FinishReason::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

}  // namespace ogai

namespace ogai::sampling {

bool StopChecker::is_eos(TokenId token) const {
  return std::find(eos_ids.begin(), eos_ids.end(), token) != eos_ids.end();
}

void StopChecker::check_prompt(int64_t prompt_tokens) const {
  if (max_new_tokens && *max_new_tokens < 1) {
    fail(ErrorCode::kInvalidArgument, "max_new_tokens", "{} is outside the allowed range [1, +inf)", *max_new_tokens);
  }
  if (context_limit && prompt_tokens >= *context_limit) {
    fail(ErrorCode::kInvalidArgument, "prompt",
         "the prompt has {} tokens; the context holds {}, leaving no room to generate", prompt_tokens, *context_limit);
  }
}

std::optional<FinishReason> StopChecker::check(TokenId token, int64_t generated, int64_t total, bool cancelled,
                                               bool stop_string_hit) const {
  if (cancelled) return FinishReason::kCancelled;
  if (is_eos(token)) return FinishReason::kEos;
  if (stop_string_hit) return FinishReason::kStop;
  if (max_new_tokens && generated >= *max_new_tokens) return FinishReason::kLength;
  if (context_limit && total >= *context_limit) return FinishReason::kLength;
  return std::nullopt;
}

}  // namespace ogai::sampling
