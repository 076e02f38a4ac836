// GrammarConstraint: a compiled grammar bound to a model's vocabulary and end tokens, the
// sampling::Constraint (sampling/constraint.h) behind structured output.
//
// GrammarState (one per sequence) computes the set of allowed tokens from its Matcher state by
// walking token tries (token_trie.h): one cached DFA lookup per trie node visited, subtrees
// skipped as soon as their prefix is rejected. Masks are cached per matcher state (a state seen
// again costs a lookup), and shared between the constraint's sequences by configuration
// (shared_mask_cache.h): a state another sequence has seen costs a key and a locked lookup. End
// ids (EOS, stop token ids) are never matched as text: they are allowed exactly when the text so
// far is complete.
// Runs (the lexeme fast path): when every plain byte (token_trie.h) leads from the state to one and
// the same state, and so on for k levels (inside a JSON string, a counted string, a regex's
// [^"]*), the state after any k plain bytes is known without reading them. Then the all-plain
// tokens of length <= k are allowed by one bit-set copy and only the tails after a token's plain
// run are walked (run_split.h: inside a string, a few percent of the vocabulary's trie nodes).
// Else the same with letters (an e-mail's local part, a hostname, a TLD). States where neither
// class leads to one state (structure, numbers, enums, dates) walk the whole trie; their walks die
// within a few bytes.
// Whether every byte of a class leads to one state is read off the state's stacks
// (Matcher::uniform), so finding a run costs one DFA step per level, not one per byte class.
// Shortcut of every trie walk: a trie subtree whose bytes are all plain is accepted whole, without
// walking it, when the state there starts a plain run at least as long as the subtree is high
// (plain_depth()).
// Cost of an uncached mask: O(trie nodes visited) plus, on the plain-run path, O(V / 64) to copy
// the plain tokens' bits, plus O(V / 64) to count them (and list them when at most V / 64).
// allowed() (the mask call the Sampler makes) hands out the cached bits and list: O(1) for a state
// this sequence has seen, a key and a locked lookup for one another sequence has; the Sampler
// consumes them in its own pass (sampling/allowed_tokens.h). mask() materializes them: O(V).
// GrammarConstraint is immutable and thread-safe; GrammarState is not (one per sequence).
#pragma once

#include <array>
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

// How masks are computed: kRuns (the default) takes the run path where it applies;
// kWholeTrie always walks the whole trie (the earlier algorithm: the baseline of
// bench/grammar_bench and a second reference in the tests). Both give the same masks.
enum class MaskPath { kRuns, kWholeTrie };

class GrammarConstraint final : public sampling::Constraint {
 public:
  GrammarConstraint(std::shared_ptr<const CompiledGrammar> grammar, std::shared_ptr<const Vocabulary> vocabulary,
                    std::vector<TokenId> end_ids, MaskPath path = MaskPath::kRuns);
  std::unique_ptr<sampling::ConstraintState> start() const override;
  std::unique_ptr<GrammarState> start_state() const;

  const CompiledGrammar& grammar() const { return *grammar_; }
  const Vocabulary& vocabulary() const { return *vocabulary_; }
  const std::vector<TokenId>& end_ids() const { return end_ids_; }

 private:
  friend class GrammarState;
  std::shared_ptr<const CompiledGrammar> grammar_;
  std::shared_ptr<const Vocabulary> vocabulary_;
  std::vector<TokenId> end_ids_;  // sorted, unique
  MaskPath path_;
  // Per RunSplit::Kind: the bytes of the class, and one of them.
  std::array<ByteSet, RunSplit::kKinds> run_sets_;
  std::array<std::uint8_t, RunSplit::kKinds> run_byte_{};
  mutable SharedMaskCache shared_masks_;
};

class GrammarState final : public sampling::ConstraintState {
 public:
  // `constraint` must outlive the state (a Sampler guarantees it: it holds the constraint).
  explicit GrammarState(const GrammarConstraint& constraint);
  sampling::AllowedTokens allowed() override;
  void accept(TokenId token) override;
  bool complete() const override { return !ended_ && matcher_.accepting(state_); }

  // The tokens whose bytes may follow (end ids excluded), as bits over the vocabulary: bit i of
  // word i / 64. Valid until the next call.
  const TokenMask& allowed_text_tokens();
  // Whether token `id` may come next (end ids included), by walking its bytes alone: the brute-
  // force reference the tests compare allowed_text_tokens() with.
  bool allows_by_walk(TokenId id);
  Matcher& matcher() { return matcher_; }
  // How many masks this state computed by a run path (of that kind; of either) and by walking
  // the whole trie.
  std::size_t run_masks(RunSplit::Kind kind) const { return run_masks_[static_cast<std::size_t>(kind)]; }
  std::size_t run_masks() const { return run_masks_[0] + run_masks_[1]; }
  std::size_t whole_trie_masks() const { return whole_trie_masks_; }
  Matcher::State state() const { return state_; }
  bool ended() const { return ended_; }

 private:
  static constexpr std::size_t kPlainMinSubtree = 4;  // smaller subtrees: walking is as cheap

  // run_next_ markers (any other value: the one state every byte of the class leads to, never kDead).
  static constexpr Matcher::State kUnknown = -2, kDiverges = -1;
  enum class RunEnd { kDead, kCapped, kDiverges };

  bool is_end(TokenId id) const;
  // The cached entry of the current (not ended) state, computed on a miss.
  const MaskEntry& entry();
  std::shared_ptr<const MaskEntry> compute_entry();
  [[noreturn]] void fail_nothing_allowed() const;
  void compute_mask(std::vector<std::uint64_t>& words);
  // Where every byte of the class leads from `s`: one state, kDead (all die) or kDiverges (memoized).
  Matcher::State run_next(RunSplit::Kind kind, Matcher::State s);
  // run_states_[k] = the state after any k bytes of the class from `s`, for as long as they
  // converge (k <= RunSplit::kMaxRun); and what follows the last one.
  RunEnd run(RunSplit::Kind kind, Matcher::State s);
  // Sets the bits of the tokens of `trie` viable from `start`.
  void walk_trie(const TokenTrie& trie, Matcher::State start, std::vector<std::uint64_t>& words);
  // The length of the plain run from `s` (run_next), at most `cap` (memoized per walk): every
  // plain text that long is viable from `s`.
  int plain_depth(Matcher::State s, int cap);

  const GrammarConstraint& constraint_;  // outlives the state
  const Vocabulary& vocabulary_;
  Matcher matcher_;
  Matcher::State state_;
  bool ended_ = false;  // an end token was accepted
  std::array<std::size_t, RunSplit::kKinds> run_masks_{};
  std::size_t whole_trie_masks_ = 0;
  std::unordered_map<Matcher::State, std::shared_ptr<const MaskEntry>> cache_;  // this matcher's states
  std::vector<Matcher::State> walk_states_;                                     // per trie depth
  // Per kind, per matcher state: run_next()'s memo (kUnknown: not computed).
  std::array<std::vector<Matcher::State>, RunSplit::kKinds> run_next_;
  std::vector<Matcher::State> run_states_;  // run()'s result
  std::vector<int> plain_depths_;           // per matcher state, valid when plain_stamps_ matches
  std::vector<std::uint32_t> plain_stamps_;
  std::uint32_t plain_stamp_ = 0;  // one per walk
  TokenMask nothing_;              // the mask after an end token
};

}  // namespace ogai::grammar
