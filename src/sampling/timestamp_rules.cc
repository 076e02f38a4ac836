#include "sampling/timestamp_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "base/error.h"

namespace ogai::sampling {
namespace {

// Bits [begin, end) of `words` set to `on`.
void set_range(std::vector<std::uint64_t>& words, std::size_t begin, std::size_t end, bool on) {
  for (std::size_t i = begin; i < end; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << (i % 64);
    words[i / 64] = on ? words[i / 64] | bit : words[i / 64] & ~bit;
  }
}

bool allowed_bit(const std::vector<std::uint64_t>& words, std::size_t i) { return (words[i / 64] >> (i % 64)) & 1; }

class TimestampState final : public ConstraintState {
 public:
  explicit TimestampState(const TimestampRuleIds& ids)
      : eos_(static_cast<std::size_t>(ids.eos)),
        first_(static_cast<std::size_t>(ids.no_timestamps) + 1),
        max_initial_(ids.max_initial_index),
        vocab_(first_ + 1501) {}

  // Without logits: the vocabulary of the last step, else Whisper's 1501 timestamps after T.
  AllowedTokens allowed() override { return allowed_at({}); }

  AllowedTokens allowed_at(std::span<const float> logits) override {
    if (!logits.empty()) vocab_ = logits.size();
    const std::size_t v = vocab_;
    words_.assign((v + 63) / 64, 0);
    set_range(words_, 0, v, true);
    apply_sequence_rules(v);
    if (!logits.empty()) apply_probability_rule(logits);
    return {words_, {}, false};
  }

  void accept(TokenId token) override {
    const bool stamp = is_stamp(token);
    penultimate_stamp_ = count_ == 0 || last_stamp_;
    last_stamp_ = stamp;
    if (stamp) last_time_ = static_cast<std::size_t>(token);
    any_stamp_ = any_stamp_ || stamp;
    ++count_;
  }

  bool complete() const override { return true; }

 private:
  bool is_stamp(TokenId t) const { return t >= 0 && static_cast<std::size_t>(t) >= first_; }

  void apply_sequence_rules(std::size_t v) {
    if (first_ - 1 < v) set_range(words_, first_ - 1, first_, false);  // rule 1
    // After a timestamp, "penultimate" counts a missing token as a timestamp (the text's start).
    const bool penultimate = count_ < 2 || penultimate_stamp_;
    if (count_ >= 1 && last_stamp_) {  // rule 2
      if (penultimate) set_range(words_, std::min(first_, v), v, false);
      else set_range(words_, 0, std::min(eos_, v), false);
    }
    if (any_stamp_) {  // rule 3
      const std::size_t floor = last_stamp_ && !penultimate ? last_time_ : last_time_ + 1;
      set_range(words_, std::min(first_, v), std::min(floor, v), false);
    }
    if (count_ == 0) {  // rule 4
      set_range(words_, 0, std::min(first_, v), false);
      if (max_initial_) set_range(words_, std::min(first_ + static_cast<std::size_t>(*max_initial_) + 1, v), v, false);
    }
  }

  void apply_probability_rule(std::span<const float> logits) {
    const float inf = std::numeric_limits<float>::infinity();
    float text_max = -inf, stamp_max = -inf;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      if (!allowed_bit(words_, i)) continue;
      float& m = i < first_ ? text_max : stamp_max;
      m = std::max(m, logits[i]);
    }
    if (stamp_max == -inf) return;
    double sum = 0;
    for (std::size_t i = first_; i < logits.size(); ++i)
      if (allowed_bit(words_, i)) sum += std::exp(static_cast<double>(logits[i]) - stamp_max);
    const double stamp_mass = stamp_max + std::log(sum);
    if (stamp_mass > text_max) set_range(words_, 0, std::min(first_, logits.size()), false);
  }

  std::size_t eos_, first_;
  std::optional<int> max_initial_;
  std::size_t vocab_;
  std::size_t count_ = 0, last_time_ = 0;
  bool last_stamp_ = false, penultimate_stamp_ = true, any_stamp_ = false;
  std::vector<std::uint64_t> words_;
};

}  // namespace

TimestampRules::TimestampRules(TimestampRuleIds ids) : ids_(ids) {
  if (ids.eos < 0 || ids.no_timestamps < 0 || ids.eos >= ids.no_timestamps)
    fail(ErrorCode::kInvalidArgument, "timestamp_rules",
         "eos {} and <|notimestamps|> {} must be token ids with eos below <|notimestamps|>", ids.eos,
         ids.no_timestamps);
  if (ids.max_initial_index && *ids.max_initial_index < 0)
    fail(ErrorCode::kInvalidArgument, "timestamp_rules.max_initial_index", "{} must be >= 0", *ids.max_initial_index);
}

std::unique_ptr<ConstraintState> TimestampRules::start() const { return std::make_unique<TimestampState>(ids_); }

}  // namespace ogai::sampling
