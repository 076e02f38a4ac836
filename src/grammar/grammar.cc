#include "grammar/grammar.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.h"
#include "grammar/compile_budget.h"

namespace ogai::grammar {
namespace {

using Kind = Element::Kind;

std::vector<bool> nullable_rules(const Grammar& g, const std::string& where) {
  std::vector<bool> nullable(g.rules.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t r = 0; r < g.rules.size(); ++r) {
      check_compile_budget(where);
      if (nullable[r]) continue;
      for (const Sequence& alt : g.rules[r]) {
        bool all = true;
        for (const Element& e : alt) all = all && e.kind == Kind::kRule && nullable[e.index];
        if (all) { nullable[r] = changed = true; break; }
      }
    }
  }
  return nullable;
}

std::vector<bool> productive_rules(const Grammar& g, const std::string& where) {
  std::vector<bool> productive(g.rules.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t r = 0; r < g.rules.size(); ++r) {
      check_compile_budget(where);
      if (productive[r]) continue;
      for (const Sequence& alt : g.rules[r]) {
        bool all = true;
        for (const Element& e : alt)
          all = all && (e.kind == Kind::kRule ? productive[e.index] : !g.byte_sets[e.index].empty());
        if (all) { productive[r] = changed = true; break; }
      }
    }
  }
  return productive;
}

// Rules reachable from the root, in discovery order.
std::vector<std::uint32_t> reachable_rules(const Grammar& g) {
  std::vector<bool> seen(g.rules.size(), false);
  std::vector<std::uint32_t> order{g.root};
  seen[g.root] = true;
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const Sequence& alt : g.rules[order[i]])
      for (const Element& e : alt)
        if (e.kind == Kind::kRule && !seen[e.index]) {
          seen[e.index] = true;
          order.push_back(e.index);
        }
  return order;
}

// Rules that may be expanded first when `r` is: those after a nullable prefix of an alternative.
std::vector<std::vector<std::uint32_t>> left_edges(const Grammar& g, const std::vector<bool>& nullable) {
  std::vector<std::vector<std::uint32_t>> edges(g.rules.size());
  for (std::size_t r = 0; r < g.rules.size(); ++r)
    for (const Sequence& alt : g.rules[r])
      for (const Element& e : alt) {
        if (e.kind != Kind::kRule) break;
        edges[r].push_back(e.index);
        if (!nullable[e.index]) break;
      }
  return edges;
}

void check_left_recursion(const Grammar& g, const std::string& where) {
  const auto edges = left_edges(g, nullable_rules(g, where));
  enum : std::uint8_t { kNew, kOpen, kDone };
  std::vector<std::uint8_t> color(g.rules.size(), kNew);
  for (std::uint32_t start : reachable_rules(g)) {
    if (color[start] != kNew) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{start, 0}};
    color[start] = kOpen;
    while (!stack.empty()) {
      auto& [rule, next] = stack.back();
      if (next == edges[rule].size()) {
        color[rule] = kDone;
        stack.pop_back();
        continue;
      }
      const std::uint32_t to = edges[rule][next++];
      if (color[to] == kOpen)
        fail(ErrorCode::kInvalidArgument, where,
             "rule '{}' is left-recursive (it can reach itself before matching any byte); rewrite it with "
             "repetition, e.g. 'list ::= item (\",\" item)*'",
             g.names[to]);
      if (color[to] == kNew) {
        color[to] = kOpen;
        stack.emplace_back(to, 0);
      }
    }
  }
}

}  // namespace

std::size_t Grammar::element_count() const {
  std::size_t n = 0;
  for (const auto& alts : rules)
    for (const auto& alt : alts) n += alt.size() + 1;
  return n;
}

void check_grammar(const Grammar& g, const std::string& where) {
  if (g.root >= g.rules.size()) fail(ErrorCode::kInvalidArgument, where, "the grammar has no start rule");
  for (std::size_t r = 0; r < g.rules.size(); ++r)
    for (const Sequence& alt : g.rules[r])
      for (const Element& e : alt)
        if ((e.kind == Kind::kRule && e.index >= g.rules.size()) ||
            (e.kind == Kind::kBytes && e.index >= g.byte_sets.size()) || e.kind == Kind::kEnd)
          fail(ErrorCode::kInternal, where, "rule '{}' holds an invalid element", g.names[r]);
  const auto productive = productive_rules(g, where);
  std::vector<std::string> dead;  // the deepest first: nearest to the cause
  const auto reachable = reachable_rules(g);
  for (auto it = reachable.rbegin(); it != reachable.rend() && dead.size() < 4; ++it)
    if (!productive[*it]) dead.push_back("'" + g.names[*it] + "'");
  if (!dead.empty())
    fail(ErrorCode::kInvalidArgument, where,
         "rule {} can never match a finite text (every alternative needs itself or another such rule, or an "
         "empty character class: no terminal; for a schema, a $ref cycle with no value in between)",
         fmt::format("{}", fmt::join(dead, ", ")));
  check_left_recursion(g, where);
}

GrammarBuilder::GrammarBuilder(std::string where) : where_(std::move(where)) {}

std::uint32_t GrammarBuilder::add_rule(std::string name) {
  if (grammar_.rules.size() >= kMaxRules)
    fail(ErrorCode::kInvalidArgument, where_, "the grammar needs more than {} rules (the compile-time bound)", kMaxRules);
  grammar_.rules.emplace_back();
  grammar_.names.push_back(std::move(name));
  return static_cast<std::uint32_t>(grammar_.rules.size() - 1);
}

void GrammarBuilder::add_alternative(std::uint32_t rule, Sequence sequence) {
  check_compile_budget(where_);
  elements_ += sequence.size() + 1;
  check_size();
  grammar_.rules[rule].push_back(std::move(sequence));
}

std::uint32_t GrammarBuilder::rule(std::string name, std::vector<Sequence> alternatives) {
  const std::uint32_t id = add_rule(std::move(name));
  for (auto& alt : alternatives) add_alternative(id, std::move(alt));
  return id;
}

void GrammarBuilder::check_size() {
  if (elements_ > kMaxElements)
    fail(ErrorCode::kInvalidArgument, where_,
         "the grammar needs more than {} elements (the compile-time bound); simplify it (fewer or shorter "
         "enum values, smaller repetition counts)",
         kMaxElements);
}

Element GrammarBuilder::bytes(const ByteSet& set) {
  // Grammars reuse a few sets (a byte, a digit class): equal ones share an index, which keeps the
  // matcher's byte classes few.
  std::string key(reinterpret_cast<const char*>(&set), sizeof set);
  auto [it, added] = set_ids_.try_emplace(std::move(key), static_cast<std::uint32_t>(grammar_.byte_sets.size()));
  if (added) grammar_.byte_sets.push_back(set);
  return {Kind::kBytes, it->second};
}

Sequence GrammarBuilder::literal(std::string_view text) {
  Sequence seq;
  for (char c : text) seq.push_back(bytes(ByteSet::of(static_cast<std::uint8_t>(c))));
  return seq;
}

Sequence GrammarBuilder::repeat(const Sequence& item, std::int64_t min, std::int64_t max, const std::string& name) {
  if (min < 0 || (max >= 0 && max < min))
    fail(ErrorCode::kInvalidArgument, where_, "repetition {{{},{}}} of '{}': expected 0 <= min <= max", min, max, name);
  Sequence unit = item;
  if (item.size() != 1) unit = {ref(rule(name + "-item", {item}))};
  const std::size_t budget = kMaxElements - elements_;
  if (static_cast<std::size_t>(min) > budget || (max > 0 && static_cast<std::size_t>(max) > budget)) {
    elements_ = kMaxElements + 1;
    check_size();
  }
  Sequence out;
  for (std::int64_t i = 0; i < min; ++i) append(out, unit);
  if (max < 0) {
    const std::uint32_t star = add_rule(name + "-star");
    Sequence loop = unit;
    loop.push_back(ref(star));
    add_alternative(star, std::move(loop));
    add_alternative(star, {});
    out.push_back(ref(star));
  } else if (max > min) {
    std::uint32_t tail = rule(name + "-opt", {unit, {}});
    for (std::int64_t k = 1; k < max - min; ++k) {
      Sequence more = unit;
      more.push_back(ref(tail));
      tail = rule(name + "-opt", {std::move(more), {}});
    }
    out.push_back(ref(tail));
  }
  elements_ += out.size();
  check_size();
  return out;
}

Grammar GrammarBuilder::finish(std::uint32_t root) {
  grammar_.root = root;
  check_grammar(grammar_, where_);
  return std::move(grammar_);
}

}  // namespace ogai::grammar
