#include "sampling/sampler.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "sampling/cut_test.h"
#include "sampling/lanes.h"
#include "sampling/penalties.h"
#include "sampling/warpers.h"

namespace ogai::sampling {
namespace {

[[noreturn]] void fail_nothing_left() {
  fail(ErrorCode::kInvalidArgument, "logits",
       "every token's logit is -inf after logit_bias and the sampling filters; nothing to pick");
}

}  // namespace

namespace {

// The reference rule, one id at a time: the first maximum; NaN is an error, +inf a maximum.
struct ScalarArgmax {
  TokenId best = -1;
  float best_value = -INFINITY;
  void add(float x, size_t i) {
    if (!(x <= best_value)) {  // greater, or NaN
      if (std::isnan(x)) fail_bad_logit(x, i);
      best_value = x;
      best = static_cast<TokenId>(i);
    }
  }
  TokenId result() const {
    if (best < 0) fail_nothing_left();
    return best;
  }
};

// The fast rule over 64-id blocks: a vector max per block (lanes.h), then the first id holding
// it when it beats the best so far. False when a NaN or +inf turned up (the caller then applies
// the reference rule). `word(w)` is the allowed bits of block w (all ones unconstrained).
template <class Word>
bool argmax_blocks(std::span<const float> logits, Word word, ScalarArgmax& out) {
  const size_t full = logits.size() / 64;
  for (size_t w = 0; w < full; ++w) {
    const std::uint64_t m = word(w);
    if (m == 0) continue;
    const float* x = logits.data() + 64 * w;
    lanes::MaxScan scan;
    lanes::scan_all(x, 64, scan);
    if (m != ~std::uint64_t{0}) {
      // The block's max over every id bounds its max over the allowed ones: most blocks are
      // passed over at the unmasked scan's cost.
      if (!scan.any_bad() && !(scan.max() > out.best_value)) continue;
      scan = lanes::MaxScan{};
      lanes::scan_masked(x, m, scan);
    }
    if (scan.any_bad()) return false;
    const float block_max = scan.max();
    if (!(block_max > out.best_value)) continue;
    size_t j = 0;
    while (!(((m >> j) & 1) && x[j] == block_max)) ++j;
    out.best = static_cast<TokenId>(64 * w + j);
    out.best_value = block_max;
  }
  const std::uint64_t m = full * 64 < logits.size() ? word(full) : 0;  // the tail, shorter than 64
  for (size_t i = full * 64; i < logits.size(); ++i)
    if ((m >> (i % 64)) & 1) out.add(logits[i], i);
  return true;
}

}  // namespace

TokenId argmax(std::span<const float> logits) {
  ScalarArgmax fast;
  auto every = [](size_t) { return ~std::uint64_t{0}; };
  if (argmax_blocks(logits, every, fast)) return fast.result();
  ScalarArgmax exact;
  for (size_t i = 0; i < logits.size(); ++i) exact.add(logits[i], i);
  return exact.result();
}

TokenId argmax(std::span<const float> logits, const AllowedTokens& allowed) {
  ScalarArgmax out;
  if (allowed.listed) {
    for_each_allowed(logits, allowed, [&](float x, size_t i) { out.add(x, i); });
    return out.result();
  }
  auto word = [&](size_t w) { return w < allowed.words.size() ? allowed.words[w] : 0; };
  if (argmax_blocks(logits, word, out)) return out.result();
  ScalarArgmax exact;
  for_each_allowed(logits, allowed, [&](float x, size_t i) { exact.add(x, i); });
  return exact.result();
}

Sampler::Sampler(SamplingParams params, int64_t vocab_size)
    : params_(std::move(params)),
      vocab_size_(vocab_size),
      rng_(params_.seed ? *params_.seed : nondeterministic_seed()) {
  params_.validate();
  history_.reset(vocab_size, {});
  for (const auto& [id, value] : params_.logit_bias) {
    if (id >= vocab_size) {
      fail(ErrorCode::kInvalidArgument, fmt::format("sampling.logit_bias[{}]", id),
           "token id {} is outside the vocabulary [0, {})", id, vocab_size);
    }
    bias_.emplace_back(id, static_cast<float>(value));
  }
  plan_chain();
  if (params_.constraint) constraint_ = params_.constraint->start();
}

void Sampler::plan_chain() {
  // HF clamps top_k to [min_tokens_to_keep, V]; at V it keeps everything.
  top_k_active_ = params_.top_k > 0 && std::max(params_.top_k, params_.min_tokens_to_keep) < vocab_size_;
  const bool keep_one = params_.min_tokens_to_keep == 1;
  const bool top_p = params_.top_p < 1.0, typical = params_.typical_p < 1.0;
  const bool rank_filters = top_k_active_ || top_p || typical || (params_.min_p > 0.0 && !keep_one);
  if (!rank_filters) {
    path_ = Path::kDense;
  } else if (top_k_active_) {
    path_ = Path::kTopK;
  } else if (top_p && !typical && keep_one) {
    path_ = Path::kNucleus;
  } else if (typical && !top_p && params_.min_p == 0.0 && keep_one) {
    path_ = Path::kTypical;
  } else {
    path_ = Path::kCandidates;
  }
  const bool processors = !bias_.empty() || params_.repetition_penalty != 1.0 || params_.frequency_penalty != 0.0 ||
                          params_.presence_penalty != 0.0;
  const bool plain = !processors && !params_.constraint;
  leaves_row_ = plain && (params_.greedy() || path_ == Path::kDense || path_ == Path::kNucleus);
  raw_sum_path_ = plain && !params_.greedy() && params_.temperature == 1.0 &&
                  ((path_ == Path::kDense && params_.min_p == 0.0) || path_ == Path::kNucleus);
  if (params_.greedy()) return;  // argmax needs no scratch (distribution() reserves its own)
  const auto vocab = static_cast<size_t>(vocab_size_);
  switch (path_) {
    case Path::kDense:
      dense_.reserve(vocab);
      break;
    case Path::kTopK:
      candidates_.reserve(vocab);
      break;
    case Path::kTypical:
      scores_.resize(vocab);
      [[fallthrough]];
    case Path::kNucleus:
      dense_.reserve(vocab);
      dense_.keep_block_maxima(path_ == Path::kNucleus);  // for weight_ranked_above()
      nucleus_.reserve(vocab);
      break;
    case Path::kCandidates:
      candidates_.reserve(vocab);
      if (top_p) dense_.reserve(vocab);
      break;
  }
}

void Sampler::reset(std::span<const TokenId> prompt_ids) {
  history_.reset(vocab_size_, prompt_ids);
  if (params_.seed) rng_ = Rng(*params_.seed);
  if (params_.constraint) constraint_ = params_.constraint->start();
}

void Sampler::accept(TokenId token) {
  history_.push(token);
  if (constraint_) constraint_->accept(token);
}

void Sampler::check_size(std::span<const float> logits) const {
  if (static_cast<int64_t>(logits.size()) != vocab_size_) {
    fail(ErrorCode::kInvalidArgument, "logits", "{} values given; the sampler's vocabulary is {}", logits.size(),
         vocab_size_);
  }
}

const AllowedTokens* Sampler::constrain() {
  if (!constraint_) return nullptr;
  allowed_ = constraint_->allowed();
  return &allowed_;
}

// The processors touch only the ids they name, and each maps -inf to -inf: they run on the raw
// row, and a forbidden id stays forbidden however they change its logit.
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

void Sampler::apply_warpers(std::span<float> logits, const AllowedTokens* allowed) {
  const auto min_keep = static_cast<size_t>(params_.min_tokens_to_keep);
  if (params_.temperature != 1.0) apply_temperature(logits, static_cast<float>(params_.temperature));
  if (top_k_active_) {
    const size_t k = std::max(static_cast<size_t>(params_.top_k), min_keep);
    allowed ? candidates_.gather_top_k(logits, k, *allowed) : candidates_.gather_top_k(logits, k);
  } else if (params_.top_p < 1.0) {
    if (dense_.capacity() < logits.size()) dense_.reserve(logits.size());  // distribution() only
    allowed ? dense_.compute(logits, *allowed) : dense_.compute(logits);   // masks the row too
    gather_top_p(logits, dense_, params_.top_p, min_keep, candidates_);    // includes the cut
  } else {
    gather_all(logits, allowed);
  }
  if (candidates_.empty()) fail_nothing_left();
  if (top_k_active_ && params_.top_p < 1.0) filter_top_p(candidates_, params_.top_p, min_keep);
  if (params_.min_p > 0.0) filter_min_p(candidates_, params_.min_p, min_keep);
  if (params_.typical_p < 1.0) filter_typical_p(candidates_, params_.typical_p, min_keep);
}

TokenId Sampler::draw() {
  if (candidates_.order() == CandidateOrder::kUnspecified) candidates_.sort_by_id();
  candidates_.ensure_weights();
  const double target = rng_.uniform() * candidates_.total_weight();
  const size_t at = candidates_.find_cumulative(target);
  std::span<const Candidate> items = candidates_.items();
  if (at < items.size()) return items[at].id;
  // Unreachable while target < total; kept for a total of 0 (all weights underflowed).
  fail_nothing_left();
}

void Sampler::gather_all(std::span<const float> logits, const AllowedTokens* allowed) {
  allowed ? candidates_.gather_all(logits, *allowed) : candidates_.gather_all(logits);
}

std::optional<RawSoftmaxSum> Sampler::raw_softmax_sum() const {
  if (!raw_sum_ready_) return std::nullopt;
  return RawSoftmaxSum{dense_.max_logit(), dense_.total()};
}

TokenId Sampler::sample(std::span<float> logits) {
  check_size(logits);
  raw_sum_ready_ = false;
  const AllowedTokens* allowed = constrain();
  apply_processors(logits);
  if (params_.greedy()) return allowed ? argmax(logits, *allowed) : argmax(logits);
  switch (path_) {
    case Path::kDense:
      return sample_dense(logits, allowed);
    case Path::kTopK:
      return sample_top_k(logits, allowed);
    case Path::kNucleus:
      return sample_nucleus(logits, allowed);
    case Path::kTypical:
      return sample_typical(logits, allowed);
    case Path::kCandidates:
      break;
  }
  apply_warpers(logits, allowed);
  return draw();
}

TokenId Sampler::sample_dense(std::span<float> logits, const AllowedTokens* allowed) {
  dense_.compute(logits, static_cast<float>(params_.temperature), params_.min_p, allowed, false);
  raw_sum_ready_ = raw_sum_path_;
  return static_cast<TokenId>(dense_.draw(rng_.uniform()));
}

// Temperature and top-k in one pass over the raw row, then the later filters on the survivors
// exactly as apply_warpers() runs them.
TokenId Sampler::sample_top_k(std::span<float> logits, const AllowedTokens* allowed) {
  const auto min_keep = static_cast<size_t>(params_.min_tokens_to_keep);
  const size_t k = std::max(static_cast<size_t>(params_.top_k), min_keep);
  candidates_.gather_top_k(logits, k, static_cast<float>(params_.temperature), allowed);
  if (candidates_.empty()) fail_nothing_left();
  if (params_.top_p < 1.0) filter_top_p(candidates_, params_.top_p, min_keep);
  if (params_.min_p > 0.0) filter_min_p(candidates_, params_.min_p, min_keep);
  if (params_.typical_p < 1.0) filter_typical_p(candidates_, params_.typical_p, min_keep);
  return draw();
}

// Top-p (then min-p) without top-k. A draw from all weights stands when the token is kept (min-p
// in O(1), top-p by one masked pass: cut_test.h), which it is with probability kept / total (at
// least top_p): rejection, so the accepted draws follow the kept tokens' distribution exactly.
// After kCutTests passes (a kept set of little mass) the cut by histograms decides the rest.
TokenId Sampler::sample_nucleus(std::span<float> logits, const AllowedTokens* allowed) {
  const auto temperature = static_cast<float>(params_.temperature);
  dense_.compute(logits, temperature, 0.0, allowed, false);  // ties at the cut divide the raw row
  raw_sum_ready_ = raw_sum_path_;
  // Min-p after top-p: both keep rank prefixes (w is p / p_max, p_max the top token's), so the
  // tokens both keep are the shorter prefix.
  const float min_w = params_.min_p > 0.0 ? static_cast<float>(params_.min_p) : 0.0f;
  const double need = params_.top_p * dense_.total();
  std::span<const float> w = dense_.weights();
  for (int tests = 0, tries = 0; tests < kCutTests && tries < kTries; ++tries) {
    const std::int64_t id = dense_.draw(rng_.uniform());
    if (w[static_cast<std::size_t>(id)] < min_w) continue;
    ++tests;
    if (weight_ranked_above(dense_, id, logits, temperature) < need) return static_cast<TokenId>(id);
  }
  KeptSet kept;
  nucleus_.top_p(dense_, logits, temperature, params_.top_p, kept);
  kept.min_w = min_w;
  if (!kept.rank_cut && kept.min_w == 0.0f) return static_cast<TokenId>(dense_.draw(rng_.uniform()));
  return draw_kept(kept, logits);
}

// Typical-p alone: the same rejection, the test one masked pass over the scores (cut_test.h).
TokenId Sampler::sample_typical(std::span<float> logits, const AllowedTokens* allowed) {
  const auto temperature = static_cast<float>(params_.temperature);
  dense_.compute(logits, temperature, 0.0, allowed, true, true);  // the scores read y; H
  const TypicalScore f = typical_score(dense_, logits);
  const double need = params_.typical_p * dense_.total();
  for (int tests = 0; tests < kCutTests; ++tests) {
    const std::int64_t id = dense_.draw(rng_.uniform());
    const float score = f(logits[static_cast<std::size_t>(id)]);
    if (weight_scored_below(dense_, score, logits, f) < need) return static_cast<TokenId>(id);
  }
  KeptSet kept;
  nucleus_.typical_p(dense_, logits, f, params_.typical_p, scores_, kept);
  if (!kept.score_cut) return static_cast<TokenId>(dense_.draw(rng_.uniform()));
  return draw_kept(kept, logits);
}

// A draw from the kept tokens in proportion to their weights, by rejection: a draw from every
// weight (through the chunk sums: O(V / 1024)) stands when the token is kept, as it is with
// probability kept / total (at least top_p, or typical_p, of the mass). A draw accepted this way
// follows the kept tokens' distribution exactly, so after kTries refusals (a kept set of little
// mass, as min-p can leave) the walk over the kept tokens gives the same distribution.
TokenId Sampler::draw_kept(const KeptSet& kept, std::span<const float> y) {
  for (int i = 0; i < kTries; ++i) {
    const std::int64_t id = dense_.draw(rng_.uniform());
    if (dense_.keeps(kept, id, y, scores_)) return static_cast<TokenId>(id);
  }
  const double total = dense_.kept_total(kept, y, scores_);
  return static_cast<TokenId>(dense_.draw_kept(rng_.uniform(), total, kept, y, scores_));
}

TokenId Sampler::next(std::span<float> logits) {
  TokenId token = sample(logits);
  accept(token);
  return token;
}

std::span<const Candidate> Sampler::distribution(std::span<float> logits) {
  check_size(logits);
  raw_sum_ready_ = false;
  if (candidates_.capacity() < logits.size()) candidates_.reserve(logits.size());
  const AllowedTokens* allowed = constrain();
  apply_processors(logits);
  if (params_.greedy()) {
    gather_all(logits, allowed);
    if (candidates_.empty()) fail_nothing_left();
  } else {
    apply_warpers(logits, allowed);
    if (candidates_.order() == CandidateOrder::kUnspecified) candidates_.sort_by_id();  // canonical
  }
  candidates_.normalize();
  return candidates_.items();
}

}  // namespace ogai::sampling
