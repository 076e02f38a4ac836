#include "generate/speculative_accept.h"

#include "base/error.h"

namespace ogai::generate {
namespace {

// The residual draw: the first token other than `draft` whose cumulative p exceeds `target_mass`
// (walking `target` in its order); the last such token with p > 0 when rounding leaves the target
// at the very top.
TokenId draw_residual(std::span<const sampling::Candidate> target, TokenId draft, double target_mass) {
  double cumulative = 0;
  TokenId last = draft;
  for (const sampling::Candidate& c : target) {
    if (c.id == draft || c.p <= 0.0f) continue;
    cumulative += c.p;
    last = c.id;
    if (cumulative > target_mass) return c.id;
  }
  return last;
}

}  // namespace

AcceptOutcome accept_or_resample(std::span<const sampling::Candidate> target, TokenId draft, sampling::Rng& rng) {
  double total = 0, draft_p = 0;
  for (const sampling::Candidate& c : target) {
    total += c.p;
    if (c.id == draft) draft_p = c.p;
  }
  if (!(total > 0)) fail(ErrorCode::kInvalidArgument, "speculative", "the target distribution has no probability mass");
  if (rng.uniform() * total < draft_p) return {draft, true};
  const double rest = total - draft_p;
  if (!(rest > 0)) return {draft, true};  // every other token has p = 0: x is certain
  return {draw_residual(target, draft, rng.uniform() * rest), false};
}

}  // namespace ogai::generate
