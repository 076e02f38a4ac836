// Matcher: runs a CompiledGrammar over bytes, one sequence's worth of state and caches.
//
// The pushdown automaton: a parse stack is a chain of grammar positions (what to match next, then
// where to return); stacks are interned as nodes (position, parent) so equal stacks are one id,
// and a configuration is the sorted set of stacks whose top is a byte set (the accepting empty
// stack is node 0). Expanding a rule pushes one stack per alternative; a rule reference in tail
// position does not grow the stack, so repetitions run in constant stack depth.
// Configurations are interned as states of a lazily built DFA: step(state, byte) is one table
// lookup once computed (per byte class), so a token trie walk (token_trie.h) costs one lookup per
// trie node it visits. State 0 is dead (no stack left).
//
// Bounds: a step to more than kMaxStacks stacks at one position (an ambiguous grammar) is treated
// as dead (fail closed: that text is never allowed) and sets pruned();
// the caches grow with use and compact() drops them (keeping one state) once they pass
// kMaxStates states or kMaxNodes stack nodes, so memory stays bounded however long the text.
// Not thread-safe: one Matcher per sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "grammar/compiled_grammar.h"

namespace ogai::grammar {

class Matcher {
 public:
  using State = std::int32_t;
  static constexpr State kDead = 0;
  static constexpr std::size_t kMaxStacks = 4096;
  static constexpr std::size_t kMaxStates = 20000;
  static constexpr std::size_t kMaxNodes = 1 << 21;
  static constexpr std::size_t kMaxUniform = 64;

  explicit Matcher(std::shared_ptr<const CompiledGrammar> grammar);

  State initial() const { return initial_; }
  State step(State s, std::uint8_t byte) {
    const std::size_t at = static_cast<std::size_t>(s) * classes_ + grammar_->byte_class[byte];
    State t = transitions_[at];
    if (t < 0) {
      t = compute(s, byte);
      transitions_[at] = t;
    }
    return t;
  }
  // The state after `bytes` from `s` (kDead as soon as a byte does not fit).
  State walk(State s, std::string_view bytes);
  // The text so far is a complete match.
  bool accepting(State s) const { return accepting_[static_cast<std::size_t>(s)] != 0; }
  // Whether any byte may follow.
  bool can_continue(State s) const;
  // Whether every byte of `set` leads from `s` to one and the same state, read off the stacks
  // without stepping: kNone when no byte of it continues; kSame when, for each stack continuation,
  // the stacks leading there accept all of `set` or none of it (then step(s, b) is the same state
  // for every b in `set`); else kMaybeDiffer (conservative: the states may still coincide).
  // Cost: O(stacks of s x kMaxUniform) (more continuations than that: kMaybeDiffer).
  enum class Uniform { kNone, kSame, kMaybeDiffer };
  Uniform uniform(State s, const ByteSet& set);
  // Some step was cut by kMaxStacks (its text treated as not matching).
  bool pruned() const { return pruned_; }

  // True when the caches have passed their bounds; then compact(s) rebuilds them around `s` and
  // returns its new id (every other State becomes invalid).
  bool needs_compaction() const { return states_.size() > kMaxStates || nodes_.size() > kMaxNodes; }
  State compact(State s);
  // The configuration of `s` independent of this Matcher's numbering (every stack as its positions,
  // top first, the stacks sorted): equal keys mean equal states in any Matcher of the grammar.
  std::string configuration_key(State s) const;
  std::size_t state_count() const { return states_.size(); }
  const CompiledGrammar& grammar() const { return *grammar_; }

 private:
  struct Node {
    std::uint32_t pos;     // element to match next (never kEnd)
    std::uint32_t parent;  // node to continue with after this rule; 0 = the text may end
  };
  struct Range {
    std::uint32_t begin, end;  // into stack_pool_
  };

  void reset_tables();
  std::uint32_t node(std::uint32_t pos, std::uint32_t parent);  // interned; kEnd positions return parent
  void expand(std::uint32_t id);                                // into scratch_ (terminal tops)
  void expand_rule(std::uint32_t rule, std::uint32_t ret);
  State intern_scratch();
  State compute(State s, std::uint8_t byte);

  std::shared_ptr<const CompiledGrammar> grammar_;
  std::size_t classes_ = 1;
  std::vector<Node> nodes_;
  std::unordered_map<std::uint64_t, std::uint32_t> node_ids_;
  std::vector<Range> states_;
  std::vector<std::uint32_t> stack_pool_;
  std::vector<std::uint8_t> accepting_;
  std::vector<State> transitions_;                                   // [state * classes_ + class]; -1 = not computed
  std::unordered_map<std::uint64_t, std::vector<State>> state_ids_;  // set hash -> candidates
  std::vector<std::uint32_t> scratch_;
  std::vector<std::uint32_t> work_;
  std::vector<std::pair<std::uint32_t, ByteSet>> uniform_;  // uniform()'s continuations
  std::vector<std::uint32_t> visited_;                      // node id -> stamp
  std::uint32_t stamp_ = 0;
  State initial_ = kDead;
  bool pruned_ = false;
};

}  // namespace ogai::grammar
