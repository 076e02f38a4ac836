// Constraint: the hook through which a grammar (JSON Schema, regex, GBNF; src/grammar/) restricts
// the tokens a Sampler may choose. Declared here so that every decode loop that makes one Sampler
// per sequence (plain, batched rows, speculative) is constrained without knowing about grammars.
//
// A Constraint is compiled once per request, immutable and shared by every sequence of it (thread-
// safe: start() may be called from many threads). Each Sampler owns one ConstraintState, made by
// start() in its constructor and again in reset(); the state follows the tokens the sequence
// accepts. ConstraintState is not thread-safe (one per sequence, like the Sampler).
//
// The mask call is allowed(): a compact set (allowed_tokens.h: bits over the vocabulary, and a
// list of ids when small) that the Sampler consumes inside its own pass over the logits, treating
// a forbidden id as a logit of -inf. mask() writes that -inf into a row, for a caller that needs
// the masked logits themselves (and as the reference the fused sampler is tested against).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "ogai/token_id.h"
#include "sampling/allowed_tokens.h"

namespace ogai::sampling {

class ConstraintState {
 public:
  virtual ~ConstraintState() = default;
  // The tokens the grammar allows in the current state (ids the constraint does not know are
  // forbidden). End tokens (EOS, stop ids) are allowed only while the text so far is complete.
  // Valid until the next allowed() or accept(). Throws ogai::Error when no token at all may
  // follow (a grammar the vocabulary cannot spell, or after an end token).
  virtual AllowedTokens allowed() = 0;
  // allowed() for a state whose mask also depends on this step's raw logits (size V, before logit
  // bias, penalties and temperature): Whisper's timestamp rule (timestamp_rules.h) forbids text when
  // the timestamps' total probability beats every text token. The Sampler calls this one; the
  // default ignores the logits. Same lifetime and errors as allowed().
  virtual AllowedTokens allowed_at(std::span<const float> logits) {
    (void)logits;
    return allowed();
  }
  // allowed() materialized: every forbidden logit of `logits` (size V) set to -inf. O(V).
  void mask(std::span<float> logits) { materialize(allowed(), logits); }
  // Advances over a chosen token. Throws ogai::Error for a token mask() forbids.
  virtual void accept(TokenId token) = 0;
  // True when the text accepted so far is a complete match (an end token may follow).
  virtual bool complete() const = 0;
};

class Constraint {
 public:
  virtual ~Constraint() = default;
  // A fresh state at the start of the grammar. Cost: small (caches are per state and warm up as
  // the sequence is generated).
  virtual std::unique_ptr<ConstraintState> start() const = 0;
};

}  // namespace ogai::sampling
