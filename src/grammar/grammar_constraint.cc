#include "grammar/grammar_constraint.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "base/error.h"

namespace ogai::grammar {
namespace {

std::string shown(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes)
    out += (c >= 0x20 && c < 0x7F) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  return out;
}

}  // namespace

GrammarConstraint::GrammarConstraint(std::shared_ptr<const CompiledGrammar> grammar,
                                     std::shared_ptr<const Vocabulary> vocabulary, std::vector<TokenId> end_ids,
                                     MaskPath path)
    : grammar_(std::move(grammar)), vocabulary_(std::move(vocabulary)), end_ids_(std::move(end_ids)), path_(path) {
  std::sort(end_ids_.begin(), end_ids_.end());
  end_ids_.erase(std::unique(end_ids_.begin(), end_ids_.end()), end_ids_.end());
  for (std::size_t k = 0; k < RunSplit::kKinds; ++k)
    for (int b = 255; b >= 0; --b)
      if (RunSplit::in_class(static_cast<RunSplit::Kind>(k), static_cast<std::uint8_t>(b))) {
        run_sets_[k].add(static_cast<std::uint8_t>(b));
        run_byte_[k] = static_cast<std::uint8_t>(b);
      }
}

std::unique_ptr<sampling::ConstraintState> GrammarConstraint::start() const { return start_state(); }

std::unique_ptr<GrammarState> GrammarConstraint::start_state() const { return std::make_unique<GrammarState>(*this); }

// The constraint outlives its states: a Sampler holds it (params.constraint) and destroys the
// state it made first.
GrammarState::GrammarState(const GrammarConstraint& constraint)
    : constraint_(constraint),
      vocabulary_(*constraint.vocabulary_),
      matcher_(constraint.grammar_),
      state_(matcher_.initial()),
      walk_states_(vocabulary_.trie().max_depth + 1, Matcher::kDead) {}

bool GrammarState::is_end(TokenId id) const {
  return std::binary_search(constraint_.end_ids_.begin(), constraint_.end_ids_.end(), id);
}

int GrammarState::plain_depth(Matcher::State s, int cap) {
  const auto at = static_cast<std::size_t>(s);
  if (at < plain_stamps_.size() && plain_stamps_[at] == plain_stamp_) return plain_depths_[at];
  int depth = 0;
  for (Matcher::State t = s; depth < cap; ++depth) {
    t = run_next(RunSplit::Kind::kPlain, t);
    if (t == Matcher::kDead || t == kDiverges) break;
  }
  if (plain_stamps_.size() <= at) {
    plain_stamps_.resize(std::max(at + 1, matcher_.state_count()), 0);
    plain_depths_.resize(plain_stamps_.size(), 0);
  }
  plain_stamps_[at] = plain_stamp_;
  plain_depths_[at] = depth;
  return depth;
}

Matcher::State GrammarState::run_next(RunSplit::Kind kind, Matcher::State s) {
  std::vector<Matcher::State>& memo = run_next_[static_cast<std::size_t>(kind)];
  const auto at = static_cast<std::size_t>(s);
  if (at >= memo.size()) memo.resize(std::max(at + 1, matcher_.state_count()), kUnknown);
  if (memo[at] != kUnknown) return memo[at];
  const std::size_t k = static_cast<std::size_t>(kind);
  Matcher::State next = kDiverges;
  switch (matcher_.uniform(s, constraint_.run_sets_[k])) {
    case Matcher::Uniform::kNone:
      next = Matcher::kDead;
      break;
    case Matcher::Uniform::kSame:
      next = matcher_.step(s, constraint_.run_byte_[k]);
      break;
    case Matcher::Uniform::kMaybeDiffer:
      break;
  }
  return memo[at] = next;
}

GrammarState::RunEnd GrammarState::run(RunSplit::Kind kind, Matcher::State s) {
  run_states_.assign(1, s);
  while (run_states_.size() <= RunSplit::kMaxRun) {
    const Matcher::State next = run_next(kind, run_states_.back());
    if (next == Matcher::kDead) return RunEnd::kDead;
    if (next == kDiverges) return RunEnd::kDiverges;
    run_states_.push_back(next);
  }
  return RunEnd::kCapped;
}

void GrammarState::walk_trie(const TokenTrie& t, Matcher::State start, std::vector<std::uint64_t>& words) {
  if (walk_states_.size() <= t.max_depth) walk_states_.resize(t.max_depth + 1, Matcher::kDead);
  walk_states_[0] = start;
  const std::size_t n = t.size();
  const int cap = static_cast<int>(std::min<std::size_t>(vocabulary_.trie().max_depth, 255));
  for (std::size_t i = 0; i < n;) {
    const std::size_t d = t.depth[i];
    const int height = t.plain_height[i];
    if (height > 0 && t.skip[i] - i >= kPlainMinSubtree && height <= plain_depth(walk_states_[d - 1], cap)) {
      // Every token below is viable: no need to step through them.
      for (std::uint32_t k = t.token_begin[i]; k < t.token_begin[t.skip[i]]; ++k) {
        const auto id = static_cast<std::uint32_t>(t.token_ids[k]);
        words[id >> 6] |= std::uint64_t{1} << (id & 63);
      }
      i = t.skip[i];
      continue;
    }
    const Matcher::State s = matcher_.step(walk_states_[d - 1], t.byte[i]);
    if (s == Matcher::kDead) {
      i = t.skip[i];
      continue;
    }
    walk_states_[d] = s;
    for (std::uint32_t k = t.token_begin[i]; k < t.token_begin[i + 1]; ++k) {
      const auto id = static_cast<std::uint32_t>(t.token_ids[k]);
      words[id >> 6] |= std::uint64_t{1} << (id & 63);
    }
    ++i;
  }
}

void GrammarState::compute_mask(std::vector<std::uint64_t>& words) {
  if (++plain_stamp_ == 0) {
    std::fill(plain_stamps_.begin(), plain_stamps_.end(), 0);
    plain_stamp_ = 1;
  }
  RunEnd end = RunEnd::kDiverges;
  RunSplit::Kind kind = RunSplit::Kind::kPlain;
  if (constraint_.path_ == MaskPath::kRuns)
    for (std::size_t k = 0; k < RunSplit::kKinds && end == RunEnd::kDiverges; ++k) {
      kind = static_cast<RunSplit::Kind>(k);
      end = run(kind, state_);
    }
  if (end == RunEnd::kDiverges) {
    ++whole_trie_masks_;
    words.assign((vocabulary_.size() + 63) / 64, 0);
    walk_trie(vocabulary_.trie(), state_, words);
  } else {
    ++run_masks_[static_cast<std::size_t>(kind)];
    // Any k bytes of the class lead to run_states_[k]: the tokens made of the class up to the
    // run's length are viable, the others are decided by their bytes after their run.
    const RunSplit& split = vocabulary_.runs(kind);
    const std::size_t length = run_states_.size() - 1;
    words = split.all_upto[length];
    for (std::size_t k = 0; k <= length; ++k) walk_trie(split.after_run[k], run_states_[k], words);
    // Capped: more bytes of the class may still follow, so the tokens with longer runs are walked
    // whole. Dead: no byte of the class follows the run, so they are all rejected.
    if (end == RunEnd::kCapped) walk_trie(split.long_runs, state_, words);
  }
  for (TokenId id : constraint_.end_ids_)
    if (id >= 0 && static_cast<std::size_t>(id) < vocabulary_.size())
      words[static_cast<std::size_t>(id) >> 6] &= ~(std::uint64_t{1} << (id & 63));
}

const TokenMask& GrammarState::allowed_text_tokens() {
  if (ended_) {  // nothing follows an end token (not cached: the configuration is the complete one)
    nothing_.assign((vocabulary_.size() + 63) / 64, 0);
    return nothing_;
  }
  return entry().text;
}

const MaskEntry& GrammarState::entry() {
  auto it = cache_.find(state_);
  if (it != cache_.end()) return *it->second;
  const std::string key = matcher_.configuration_key(state_);
  std::shared_ptr<const MaskEntry> found = constraint_.shared_masks_.find(key);
  if (!found) {
    found = compute_entry();
    constraint_.shared_masks_.insert(key, found);
  }
  if (cache_.size() >= 4096) cache_.clear();  // pointers into the shared cache: small
  return *(cache_[state_] = std::move(found));
}

std::shared_ptr<const MaskEntry> GrammarState::compute_entry() {
  auto e = std::make_shared<MaskEntry>();
  compute_mask(e->text);
  if (matcher_.accepting(state_) && !constraint_.end_ids_.empty()) {
    e->allowed = e->text;
    const auto last = static_cast<std::size_t>(constraint_.end_ids_.back());
    if (e->allowed.size() * 64 <= last) e->allowed.resize(last / 64 + 1, 0);
    for (TokenId id : constraint_.end_ids_)
      if (id >= 0) e->allowed[static_cast<std::size_t>(id) >> 6] |= std::uint64_t{1} << (id & 63);
  }
  const TokenMask& words = e->allowed_words();
  for (std::uint64_t w : words) e->count += static_cast<std::size_t>(std::popcount(w));
  e->listed = e->count <= words.size();  // at most one id per 64
  if (e->listed) {
    e->ids.reserve(e->count);
    for (std::size_t w = 0; w < words.size(); ++w)
      for (std::uint64_t m = words[w]; m != 0; m &= m - 1)
        e->ids.push_back(static_cast<std::int32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(m))));
  }
  return e;
}

bool GrammarState::allows_by_walk(TokenId id) {
  if (ended_ || id < 0) return false;
  if (is_end(id)) return matcher_.accepting(state_);
  if (static_cast<std::size_t>(id) >= vocabulary_.size()) return false;
  const std::string& bytes = vocabulary_.bytes(id);
  return !bytes.empty() && matcher_.walk(state_, bytes) != Matcher::kDead;
}

sampling::AllowedTokens GrammarState::allowed() {
  if (ended_) fail_nothing_allowed();
  const MaskEntry& e = entry();
  if (e.count == 0) fail_nothing_allowed();
  sampling::AllowedTokens out;
  out.words = e.allowed_words();
  out.ids = e.ids;
  out.listed = e.listed;
  return out;
}

void GrammarState::fail_nothing_allowed() const {
  const bool accepting = complete();
  if (!ended_ && !accepting && matcher_.pruned())
    fail(ErrorCode::kUnsupported, "response_format",
         "the grammar is too ambiguous: a continuation needs more than {} parse stacks at once; make the "
         "alternatives of its rules start differently",
         Matcher::kMaxStacks);
  fail(ErrorCode::kInvalidArgument, "response_format", "{}",
       ended_ ? "the grammar already ended; no token may follow"
              : (accepting ? "the text is complete but the request has no end token (EOS or stop token id) to end it"
                           : "no token of the vocabulary can continue the grammar here"));
}

void GrammarState::accept(TokenId token) {
  if (ended_) fail(ErrorCode::kInvalidArgument, "response_format", "token {} follows the end of the grammar", token);
  if (is_end(token)) {
    if (!matcher_.accepting(state_))
      fail(ErrorCode::kInvalidArgument, "response_format", "end token {} before the grammar is complete", token);
    ended_ = true;
    return;
  }
  const bool known = token >= 0 && static_cast<std::size_t>(token) < vocabulary_.size();
  const std::string empty;
  const std::string& bytes = known ? vocabulary_.bytes(token) : empty;
  const Matcher::State next = bytes.empty() ? Matcher::kDead : matcher_.walk(state_, bytes);
  if (next == Matcher::kDead)
    fail(ErrorCode::kInvalidArgument, "response_format", "token {} ('{}') does not continue the grammar", token,
         shown(bytes));
  state_ = next;
  if (matcher_.needs_compaction()) {
    state_ = matcher_.compact(state_);
    cache_.clear();
    for (auto& memo : run_next_) memo.clear();
  }
}

}  // namespace ogai::grammar
