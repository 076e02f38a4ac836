// Grammar: the one intermediate form every structured-output input compiles to (JSON Schema,
// json_object, regular expressions, GBNF): a context-free grammar over bytes. A rule is a list of
// alternatives; an alternative is a sequence of elements, each a byte set (one byte of the text)
// or a reference to a rule. Unicode text is spelled as its UTF-8 bytes (utf8_ranges.h).
//
// GrammarBuilder makes rules and checks the result in finish(): every referenced rule exists,
// every reachable rule can match some finite text ("no terminal" is an error), no rule is left-
// recursive (directly or through rules that match the empty text: the matcher expands rules
// top-down), and the size stays within kMaxElements (a compile-time bound; docs/structured_output.md).
// Errors are ogai::Error naming `where` and the rule.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "grammar/byte_set.h"

namespace ogai::grammar {

struct Element {
  enum class Kind : std::uint8_t { kBytes, kRule, kEnd };
  Kind kind = Kind::kEnd;
  std::uint32_t index = 0;  // kBytes: index into Grammar::byte_sets; kRule: rule id
};

using Sequence = std::vector<Element>;

struct Grammar {
  std::vector<ByteSet> byte_sets;
  std::vector<std::vector<Sequence>> rules;  // rule id -> alternatives (an empty one matches "")
  std::vector<std::string> names;            // rule id -> name, for errors
  std::uint32_t root = 0;
  std::size_t element_count() const;
};

// Compile-time bounds, per grammar.
inline constexpr std::size_t kMaxElements = 2'000'000;
inline constexpr std::size_t kMaxRules = 500'000;

class GrammarBuilder {
 public:
  // `where` names the input in errors (e.g. "response_format.json_schema").
  explicit GrammarBuilder(std::string where);

  // A new rule without alternatives yet; returns its id.
  std::uint32_t add_rule(std::string name);
  void add_alternative(std::uint32_t rule, Sequence sequence);
  // A rule with these alternatives; returns its id.
  std::uint32_t rule(std::string name, std::vector<Sequence> alternatives);

  Element bytes(const ByteSet& set);
  static Element ref(std::uint32_t rule) { return {Element::Kind::kRule, rule}; }
  // The UTF-8 bytes of `text`, one element per byte.
  Sequence literal(std::string_view text);
  // Appends `tail` to `head`.
  static void append(Sequence& head, const Sequence& tail) { head.insert(head.end(), tail.begin(), tail.end()); }

  // Repetition of `item` between min and max times (max < 0: unbounded), as right-recursive
  // rules (linear size in max).
  Sequence repeat(const Sequence& item, std::int64_t min, std::int64_t max, const std::string& name);
  Sequence optional(const Sequence& item, const std::string& name) { return repeat(item, 0, 1, name); }

  const std::string& where() const { return where_; }
  std::size_t rule_count() const { return grammar_.rules.size(); }

  // Checks and returns the grammar whose start rule is `root`.
  Grammar finish(std::uint32_t root);

 private:
  void check_size();
  std::string where_;
  Grammar grammar_;
  std::size_t elements_ = 0;
  std::unordered_map<std::string, std::uint32_t> set_ids_;  // byte set bits -> index (shared sets)
};

// The checks finish() runs (exposed for tests): references, productivity, left recursion.
void check_grammar(const Grammar& grammar, const std::string& where);

}  // namespace ogai::grammar
