// GrammarConstraint: a compiled grammar bound to a model's vocabulary and end tokens, the
// sampling::Constraint (sampling/constraint.h) behind structured output.
//
// GrammarState (one per sequence) computes the set of allowed tokens from its Matcher state by
// walking the vocabulary's token trie: one cached DFA lookup per trie node visited, subtrees
// skipped as soon as their prefix is rejected. Masks are cached per matcher state (a state seen
// again costs a lookup), and shared between the constraint's sequences by configuration
// (shared_mask_cache.h): a state another sequence has seen costs a key and a locked lookup. End ids (EOS, stop token ids) are
// never matched as text: they are allowed exactly when the text so far is complete.
// Shortcut: a trie subtree whose bytes are all plain (vocabulary.h) is accepted whole, without
// walking it, when every plain text as long as the subtree is high is viable from the state
// there (inside a JSON string, a regex's .*, a GBNF [^"]*): plain_depth(), a breadth-first probe
// of at most kPlainProbeWidth states per level, one byte per byte class.
// Cost of an uncached mask: O(trie nodes visited); of applying it: O(V).
// GrammarConstraint is immutable and thread-safe; GrammarState is not (one per sequence).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "grammar/shared_mask_cache.h"
#include "grammar/vocabulary.h"
#include "sampling/constraint.h"

namespace ogai::grammar {

class GrammarState;

class GrammarConstraint final : public sampling::Constraint {
 public:
  GrammarConstraint(std::shared_ptr<const CompiledGrammar> grammar, std::shared_ptr<const Vocabulary> vocabulary,
                    std::vector<std::int64_t> end_ids);
  std::unique_ptr<sampling::ConstraintState> start() const override;
  std::unique_ptr<GrammarState> start_state() const;

  const CompiledGrammar& grammar() const { return *grammar_; }
  const Vocabulary& vocabulary() const { return *vocabulary_; }
  const std::vector<std::int64_t>& end_ids() const { return end_ids_; }

 private:
  friend class GrammarState;
  std::shared_ptr<const CompiledGrammar> grammar_;
  std::shared_ptr<const Vocabulary> vocabulary_;
  std::vector<std::int64_t> end_ids_;  // sorted, unique
  std::vector<std::uint8_t> plain_bytes_;  // one plain byte per byte class that has some
  mutable SharedMaskCache shared_masks_;
};

class GrammarState final : public sampling::ConstraintState {
 public:

  // `constraint` must outlive the state (a Sampler guarantees it: it holds the constraint).
  explicit GrammarState(const GrammarConstraint& constraint);
  void mask(std::span<float> logits) override;
  void accept(std::int64_t token) override;
  bool complete() const override { return !ended_ && matcher_.accepting(state_); }

  // The tokens whose bytes may follow (end ids excluded), as bits over the vocabulary: bit i of
  // word i / 64. Valid until the next call.
  const TokenMask& allowed_text_tokens();
  // Whether token `id` may come next (end ids included), by walking its bytes alone: the brute-
  // force reference the tests compare allowed_text_tokens() with.
  bool allows_by_walk(std::int64_t id);
  Matcher& matcher() { return matcher_; }
  Matcher::State state() const { return state_; }
  bool ended() const { return ended_; }

 private:
  static constexpr std::size_t kPlainProbeWidth = 16;
  static constexpr std::size_t kPlainMinSubtree = 4;  // smaller subtrees: walking is as cheap

  bool is_end(std::int64_t id) const;
  void compute_mask(std::vector<std::uint64_t>& words);
  // The largest d <= cap such that every plain text of d bytes is viable from `s` (memoized per walk).
  int plain_depth(Matcher::State s, int cap);

  const GrammarConstraint& constraint_;  // outlives the state
  const Vocabulary& vocabulary_;
  Matcher matcher_;
  Matcher::State state_;
  bool ended_ = false;  // an end token was accepted
  std::unordered_map<Matcher::State, std::shared_ptr<const TokenMask>> cache_;  // this matcher's states
  std::vector<Matcher::State> walk_states_;  // per trie depth
  std::vector<int> plain_depths_;       // per matcher state, valid when plain_stamps_ matches
  std::vector<std::uint32_t> plain_stamps_;
  std::uint32_t plain_stamp_ = 0;       // one per walk
  std::vector<Matcher::State> level_, next_level_;        // plain_depth's probe
  std::vector<float> saved_;                 // end ids' logits during mask()
  TokenMask nothing_;                        // the mask after an end token
};

}  // namespace ogai::grammar
