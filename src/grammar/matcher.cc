#include "grammar/matcher.h"

#include <algorithm>

#include "base/error.h"

namespace ogai::grammar {
namespace {

std::uint64_t hash_ids(const std::vector<std::uint32_t>& ids) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint32_t id : ids) {
    h ^= id;
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

constexpr std::uint32_t kAcceptNode = 0;

}  // namespace

Matcher::Matcher(std::shared_ptr<const CompiledGrammar> grammar)
    : grammar_(std::move(grammar)), classes_(static_cast<std::size_t>(grammar_->class_count)) {
  reset_tables();
}

void Matcher::reset_tables() {
  nodes_.assign(1, Node{UINT32_MAX, 0});
  node_ids_.clear();
  visited_.assign(1, 0);
  stamp_ = 0;
  states_.assign(1, Range{0, 0});
  stack_pool_.clear();
  accepting_.assign(1, 0);
  transitions_.assign(classes_, kDead);
  state_ids_.clear();
  ++stamp_;
  scratch_.clear();
  expand_rule(grammar_->root, kAcceptNode);
  initial_ = intern_scratch();
}

std::uint32_t Matcher::node(std::uint32_t pos, std::uint32_t parent) {
  if (grammar_->elements[pos].kind == Element::Kind::kEnd) return parent;
  const std::uint64_t key = (static_cast<std::uint64_t>(pos) << 32) | parent;
  auto [it, added] = node_ids_.try_emplace(key, static_cast<std::uint32_t>(nodes_.size()));
  if (added) {
    nodes_.push_back(Node{pos, parent});
    visited_.push_back(0);
  }
  return it->second;
}

void Matcher::expand(std::uint32_t id) {
  work_.push_back(id);
  while (!work_.empty()) {
    const std::uint32_t n = work_.back();
    work_.pop_back();
    if (visited_[n] == stamp_) continue;
    visited_[n] = stamp_;
    if (n == kAcceptNode) {
      scratch_.push_back(n);
      continue;
    }
    const Node nd = nodes_[n];
    const Element e = grammar_->elements[nd.pos];
    if (e.kind == Element::Kind::kBytes) {
      scratch_.push_back(n);
      continue;
    }
    const std::uint32_t ret = node(nd.pos + 1, nd.parent);
    for (std::uint32_t a = grammar_->alt_begin[e.index]; a < grammar_->alt_begin[e.index + 1]; ++a)
      work_.push_back(node(grammar_->alt_start[a], ret));
  }
}

void Matcher::expand_rule(std::uint32_t rule, std::uint32_t ret) {
  for (std::uint32_t a = grammar_->alt_begin[rule]; a < grammar_->alt_begin[rule + 1]; ++a)
    expand(node(grammar_->alt_start[a], ret));
}

Matcher::State Matcher::intern_scratch() {
  std::sort(scratch_.begin(), scratch_.end());
  scratch_.erase(std::unique(scratch_.begin(), scratch_.end()), scratch_.end());
  if (scratch_.empty()) return kDead;
  if (scratch_.size() > kMaxStacks) {
    pruned_ = true;
    return kDead;
  }
  std::vector<State>& bucket = state_ids_[hash_ids(scratch_)];
  for (State s : bucket) {
    const Range r = states_[static_cast<std::size_t>(s)];
    if (r.end - r.begin == scratch_.size() &&
        std::equal(scratch_.begin(), scratch_.end(), stack_pool_.begin() + r.begin))
      return s;
  }
  const auto s = static_cast<State>(states_.size());
  const auto begin = static_cast<std::uint32_t>(stack_pool_.size());
  stack_pool_.insert(stack_pool_.end(), scratch_.begin(), scratch_.end());
  states_.push_back(Range{begin, static_cast<std::uint32_t>(stack_pool_.size())});
  accepting_.push_back(scratch_.front() == kAcceptNode ? 1 : 0);
  transitions_.resize(transitions_.size() + classes_, -1);
  bucket.push_back(s);
  return s;
}

Matcher::State Matcher::compute(State s, std::uint8_t byte) {
  if (++stamp_ == 0) {
    std::fill(visited_.begin(), visited_.end(), 0);
    stamp_ = 1;
  }
  scratch_.clear();
  const Range r = states_[static_cast<std::size_t>(s)];
  for (std::uint32_t i = r.begin; i < r.end; ++i) {
    const std::uint32_t id = stack_pool_[i];
    if (id == kAcceptNode) continue;
    const Node nd = nodes_[id];
    const Element e = grammar_->elements[nd.pos];
    if (grammar_->byte_sets[e.index].has(byte)) expand(node(nd.pos + 1, nd.parent));
  }
  return intern_scratch();
}

Matcher::State Matcher::walk(State s, std::string_view bytes) {
  for (char c : bytes) {
    if (s == kDead) return kDead;
    s = step(s, static_cast<std::uint8_t>(c));
  }
  return s;
}

bool Matcher::can_continue(State s) const {
  const Range r = states_[static_cast<std::size_t>(s)];
  for (std::uint32_t i = r.begin; i < r.end; ++i)
    if (stack_pool_[i] != kAcceptNode) return true;
  return false;
}

Matcher::Uniform Matcher::uniform(State s, const ByteSet& set) {
  uniform_.clear();
  const Range r = states_[static_cast<std::size_t>(s)];
  for (std::uint32_t i = r.begin; i < r.end; ++i) {
    const std::uint32_t id = stack_pool_[i];
    if (id == kAcceptNode) continue;
    const Node nd = nodes_[id];
    const ByteSet taken = grammar_->byte_sets[grammar_->elements[nd.pos].index] & set;
    if (taken.empty()) continue;
    const std::uint32_t next = node(nd.pos + 1, nd.parent);
    auto it = std::find_if(uniform_.begin(), uniform_.end(), [&](const auto& u) { return u.first == next; });
    if (it != uniform_.end()) {
      it->second.add(taken);
    } else {
      if (uniform_.size() == kMaxUniform) return Uniform::kMaybeDiffer;  // too many to compare
      uniform_.emplace_back(next, taken);
    }
  }
  if (uniform_.empty()) return Uniform::kNone;
  for (const auto& [_, taken] : uniform_)
    if (!(taken == set)) return Uniform::kMaybeDiffer;
  return Uniform::kSame;
}

std::string Matcher::configuration_key(State s) const {
  std::vector<std::string> stacks;
  const Range r = states_[static_cast<std::size_t>(s)];
  for (std::uint32_t i = r.begin; i < r.end; ++i) {
    std::string stack;
    for (std::uint32_t id = stack_pool_[i]; id != kAcceptNode; id = nodes_[id].parent)
      stack.append(reinterpret_cast<const char*>(&nodes_[id].pos), sizeof(std::uint32_t));
    stacks.push_back(std::move(stack));
  }
  std::sort(stacks.begin(), stacks.end());
  std::string key;
  for (const auto& stack : stacks) {
    const auto n = static_cast<std::uint32_t>(stack.size());
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
    key += stack;
  }
  return key;
}

Matcher::State Matcher::compact(State s) {
  // Each stack as its positions from the top down, then the tables rebuilt around them.
  std::vector<std::vector<std::uint32_t>> stacks;
  const Range r = states_[static_cast<std::size_t>(s)];
  for (std::uint32_t i = r.begin; i < r.end; ++i) {
    std::vector<std::uint32_t> path;
    for (std::uint32_t id = stack_pool_[i]; id != kAcceptNode; id = nodes_[id].parent) path.push_back(nodes_[id].pos);
    stacks.push_back(std::move(path));
  }
  reset_tables();
  scratch_.clear();
  for (const auto& path : stacks) {
    std::uint32_t id = kAcceptNode;
    for (auto it = path.rbegin(); it != path.rend(); ++it) id = node(*it, id);
    scratch_.push_back(id);
  }
  return intern_scratch();
}

}  // namespace ogai::grammar
