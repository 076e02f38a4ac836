// The acceptance rule of speculative sampling (Leviathan et al. 2023; Chen et al. 2023) for a
// deterministic drafter: the proposal x is one-hot (q(x) = 1), so the general rule "accept x with
// probability min(1, p(x) / q(x)), else draw from norm(max(0, p - q))" becomes "accept x with
// probability p(x), else draw from p with x removed, renormalised". The emitted token is then
// distributed exactly as p, whatever x was. Both drafters here propose deterministically (the
// n-gram lookup, and the assistant's argmax chain), so this is the whole rule.
//
// `target` is the distribution plain sampling draws from at that position (Sampler::distribution:
// normalised p of the surviving tokens; tokens absent from it have p = 0), in a canonical order
// (by id or by rank), which the residual draw walks; `rng` is the sampler's generator. One
// uniform is drawn on acceptance, two on rejection, so a seed fixes the outcome.
// Pure function: allocates nothing; thread-safe for distinct generators.
#pragma once

#include <cstdint>
#include <span>

#include "ogai/token_id.h"
#include "sampling/candidates.h"
#include "sampling/rng.h"

namespace ogai::generate {

struct AcceptOutcome {
  TokenId token = 0;  // the token to emit: the draft when accepted, else the residual draw
  bool accepted = false;
};

// Throws ogai::Error (kInvalidArgument) when `target` holds no probability mass.
AcceptOutcome accept_or_resample(std::span<const sampling::Candidate> target, TokenId draft, sampling::Rng& rng);

}  // namespace ogai::generate
