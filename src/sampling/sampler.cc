#include "sampling/sampler.h"

#include <cmath>

#include "base/error.h"
#include "sampling/penalties.h"
#include "sampling/warpers.h"

namespace ogai::sampling {
namespace {

[[noreturn]] void fail_nothing_left() {
  fail(ErrorCode::kInvalidArgument, "logits",
       "every token's logit is -inf after logit_bias and the sampling filters; nothing to pick");
}

}  // namespace

int64_t argmax(std::span<const float> logits) {
  int64_t best = -1;
  float best_value = -INFINITY;
  for (size_t i = 0; i < logits.size(); ++i) {
    float x = logits[i];
    if (!(x <= best_value)) {  // greater, or NaN
      if (std::isnan(x)) fail_bad_logit(x, i);
      best_value = x;
      best = static_cast<int64_t>(i);
    }
  }
  if (best < 0) fail_nothing_left();
  return best;
}

Sampler::Sampler(SamplingParams params, int64_t vocab_size)
    : params_(std::move(params)), vocab_size_(vocab_size),
      rng_(params_.seed ? *params_.seed : nondeterministic_seed()) {
  params_.validate();
  history_.reset(vocab_size, {});
  for (const auto& [id, value] : params_.logit_bias) {
    if (id >= vocab_size) {
      fail(ErrorCode::kInvalidArgument, fmt::format("sampling.logit_bias[{}]", id),
           "token id {} is outside the vocabulary [0, {})", id, vocab_size);
    }
    bias_.emplace_back(static_cast<int32_t>(id), static_cast<float>(value));
  }
  candidates_.reserve(static_cast<size_t>(vocab_size));
}

void Sampler::reset(std::span<const int64_t> prompt_ids) {
  history_.reset(vocab_size_, prompt_ids);
  if (params_.seed) rng_ = Rng(*params_.seed);
}

void Sampler::check_size(std::span<const float> logits) const {
  if (static_cast<int64_t>(logits.size()) != vocab_size_) {
    fail(ErrorCode::kInvalidArgument, "logits", "{} values given; the sampler's vocabulary is {}",
         logits.size(), vocab_size_);
  }
}

void Sampler::apply_processors(std::span<float> logits) {
  if (!bias_.empty()) apply_logit_bias(logits, bias_);
  if (params_.repetition_penalty != 1.0) {
    apply_repetition_penalty(logits, history_, static_cast<float>(params_.repetition_penalty));
  }
  if (params_.frequency_penalty != 0.0 || params_.presence_penalty != 0.0) {
    apply_frequency_presence(logits, history_, static_cast<float>(params_.frequency_penalty),
                             static_cast<float>(params_.presence_penalty));
  }
}

void Sampler::apply_warpers(std::span<float> logits) {
  const auto min_keep = static_cast<size_t>(params_.min_tokens_to_keep);
  if (params_.temperature != 1.0) apply_temperature(logits, static_cast<float>(params_.temperature));
  if (params_.top_k > 0) {
    candidates_.gather_top_k(logits, std::max(static_cast<size_t>(params_.top_k), min_keep));
  } else {
    candidates_.gather_all(logits);
  }
  if (candidates_.empty()) fail_nothing_left();
  if (params_.top_p < 1.0) filter_top_p(candidates_, params_.top_p, min_keep);
  if (params_.min_p > 0.0) filter_min_p(candidates_, params_.min_p, min_keep);
  if (params_.typical_p < 1.0) filter_typical_p(candidates_, params_.typical_p, min_keep);
}

int64_t Sampler::draw() {
  if (candidates_.order() == CandidateOrder::kUnspecified) candidates_.sort_by_id();
  candidates_.normalize();
  std::span<const Candidate> items = candidates_.items();
  double total = 0.0;
  for (const Candidate& c : items) total += c.p;
  const double target = rng_.uniform() * total;
  double cumulative = 0.0;
  for (const Candidate& c : items) {
    cumulative += c.p;
    if (cumulative > target) return c.id;
  }
  // Rounding left target at the very top: the last token with a nonzero probability.
  for (size_t i = items.size(); i-- > 0;) {
    if (items[i].p > 0.0f) return items[i].id;
  }
  fail_nothing_left();
}

int64_t Sampler::sample(std::span<float> logits) {
  check_size(logits);
  apply_processors(logits);
  if (params_.greedy()) return argmax(logits);
  apply_warpers(logits);
  return draw();
}

int64_t Sampler::next(std::span<float> logits) {
  int64_t token = sample(logits);
  accept(token);
  return token;
}

std::span<const Candidate> Sampler::distribution(std::span<float> logits) {
  check_size(logits);
  apply_processors(logits);
  if (params_.greedy()) {
    candidates_.gather_all(logits);
    if (candidates_.empty()) fail_nothing_left();
  } else {
    apply_warpers(logits);
  }
  candidates_.normalize();
  return candidates_.items();
}

}  // namespace ogai::sampling
