// StopChecker: the token-level stop rules of the decode loop, as plain data and one function.
//
// It combines the EOS ids, max_new_tokens and the context limit with the two signals the loop
// owns (a cancelled request, a StopStringMatcher hit) into the request's finish reason.
// It keeps no state: the loop passes its counters in. Thread-safe (const).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ogai/finish_reason.h"
#include "ogai/token_id.h"

namespace ogai::sampling {

struct StopChecker {
  // End-of-sequence ids (package special tokens, generation_config.json, tokenizer). An EOS token
  // ends generation and is not part of the text.
  std::vector<TokenId> eos_ids;
  // Most tokens to generate (>= 1); unset: no limit besides the context.
  std::optional<int64_t> max_new_tokens;
  // Most tokens in prompt + generated text (the model's max_sequence_length); unset: no limit.
  std::optional<int64_t> context_limit;

  bool is_eos(TokenId token) const;

  // Throws ogai::Error (kInvalidArgument) when max_new_tokens < 1, or when the prompt leaves no
  // room for one generated token (prompt_tokens >= context_limit), naming both numbers.
  void check_prompt(int64_t prompt_tokens) const;

  // The finish reason after a token was sampled (nullopt: keep generating). generated counts the new tokens including
  // this one; total counts prompt + generated. Precedence: cancelled, eos, stop string, length.
  std::optional<FinishReason> check(TokenId token, int64_t generated, int64_t total, bool cancelled,
                                    bool stop_string_hit) const;
};

}  // namespace ogai::sampling
