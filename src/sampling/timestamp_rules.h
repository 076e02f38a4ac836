// Whisper's timestamp rules as a Constraint (constraint.h): the rules of Hugging Face's
// WhisperTimeStampLogitsProcessor (and OpenAI whisper's ApplyTimestampRules) on the tokens a
// sequence generates after its prompt. Per step, over the vocabulary V with T = no_timestamps + 1
// the first timestamp token (<|0.00|>, one step per 0.02 s):
//   1. <|notimestamps|> is forbidden;
//   2. pairs: after a timestamp that follows a timestamp (or starts the text), only non-timestamps;
//      after a timestamp that follows text, no text token (ids below eos; eos and the other
//      specials stay allowed, so a lone timestamp may end the text);
//   3. monotonic: timestamps below the last one generated are forbidden (below the last one + 1
//      unless that one opened a pair, so <|0.00|> is not repeated);
//   4. the first generated token is a timestamp (ids below T forbidden), at most T + max_initial
//      when max_initial_index is set;
//   5. when the timestamps' total probability (logsumexp of the logits still allowed in [T, V))
//      beats the most likely allowed token below T, every id below T is forbidden.
// Rules 1-4 read the generated tokens only, rule 5 the step's raw logits (allowed_at). The
// comparison in 5 is made on logits, not log-softmax values: both sides shift by the same
// normalizer, so the decision is the processor's. allowed() without logits uses the last step's
// vocabulary size (before any step: T + 1501, Whisper's 30 s). No rule ever empties the set: rule 5 keeps the
// timestamps it compared, and rules 2-4 leave eos or a timestamp (the sampler reports an empty set).
// Not done here: suppress_tokens / begin_suppress_tokens (Whisper's generation_config lists).
// The Constraint is immutable and shared; each state is one sequence's (not thread-safe).
#pragma once

#include <memory>
#include <optional>

#include "sampling/constraint.h"

namespace ogai::sampling {

struct TimestampRuleIds {
  TokenId eos = -1;                     // <|endoftext|>
  TokenId no_timestamps = -1;           // <|notimestamps|>; the timestamps are the ids after it
  std::optional<int> max_initial_index;  // rule 4's bound in steps (50 = 1.0 s); unset = none
};

class TimestampRules final : public Constraint {
 public:
  // Throws ogai::Error (kInvalidArgument, "timestamp_rules") for negative ids or eos not below
  // no_timestamps.
  explicit TimestampRules(TimestampRuleIds ids);
  std::unique_ptr<ConstraintState> start() const override;

 private:
  TimestampRuleIds ids_;
};

}  // namespace ogai::sampling
