// AllowedTokens: the set of token ids a constraint (constraint.h) allows at one step, as a compact
// view the Sampler consumes inside the pass over the logits it already makes, instead of a
// separate pass writing -inf over the forbidden ids of the whole row.
//
// Two encodings of one set: `words` always (bit id % 64 of words[id / 64]; ids past the words are
// forbidden: 32 KB at a 262k vocabulary) and, when the set is small, `ids` too (ascending,
// listed), so that greedy picks and candidate gathers cost O(allowed) instead of O(V). Both are
// borrowed from the constraint state: valid until its next allowed() or accept().
//
// Semantics: every fused pass treats a forbidden id exactly as a logit of -inf (and never reads
// it: a NaN there is no error), so a fused chain gives the same tokens as materialize() followed by
// the unconstrained chain. materialize() is that reference, and the path for a caller that needs
// the masked row itself. Cost: materialize O(V); for_each_allowed O(V / 64) words plus
// O(allowed blocks * 64), or O(allowed) when listed. Plain data; not thread-safe to share while
// the owning state advances.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "sampling/lanes.h"

namespace ogai::sampling {

struct AllowedTokens {
  std::span<const std::uint64_t> words;  // [ceil(V / 64)] bit i % 64 of word i / 64: id i allowed
  std::span<const std::int32_t> ids;     // the same set in ascending order when listed
  bool listed = false;

  bool allows(std::size_t id) const { return id / 64 < words.size() && ((words[id / 64] >> (id % 64)) & 1) != 0; }
  // Number of allowed ids below `vocab_size`. O(V / 64).
  std::size_t count(std::size_t vocab_size) const;
};

// Sets every forbidden logit to -inf (allowed ones untouched). O(V).
void materialize(const AllowedTokens& allowed, std::span<float> logits);

namespace detail {

// out[j] = bit j of m ? x[j] : -inf, for j < 64.
inline void masked_block(const float* x, std::uint64_t m, float* out) {
  for (std::size_t i = 0; i < 64; i += 4, m >>= 4) {
    const lanes::F4 v = lanes::keep(lanes::load(x + i), static_cast<unsigned>(m));
    std::memcpy(out + i, &v, sizeof v);
  }
}

}  // namespace detail

// Calls block(x, begin, n) for the blocks of 64 ids (the last one shorter) that hold an allowed
// id, in ascending order, with x[j] the logit of id begin + j, or -inf where that id is forbidden
// (a masked copy; the row itself when the whole block is allowed). Blocks with no allowed id are
// passed to empty(begin, n) instead.
template <class Block, class Empty>
void for_each_allowed_block(std::span<const float> logits, const AllowedTokens& allowed, Block&& block, Empty&& empty) {
  alignas(64) float buffer[64];
  const std::size_t v = logits.size();
  for (std::size_t w = 0; w * 64 < v; ++w) {
    const std::size_t begin = w * 64, n = std::min<std::size_t>(64, v - begin);
    const std::uint64_t m = w < allowed.words.size() ? allowed.words[w] : 0;
    const std::uint64_t live = n == 64 ? m : m & ((std::uint64_t{1} << n) - 1);
    if (live == 0) {
      empty(begin, n);
    } else if (m == ~std::uint64_t{0}) {
      block(logits.data() + begin, begin, n);
    } else {
      if (n == 64) {
        detail::masked_block(logits.data() + begin, m, buffer);
      } else {
        for (std::size_t j = 0; j < n; ++j) buffer[j] = ((m >> j) & 1) ? logits[begin + j] : -INFINITY;
      }
      block(buffer, begin, n);
    }
  }
}

// Calls visit(x, id) in ascending id order for every allowed id, and possibly for forbidden ids
// with x = -inf (never with their logit): per listed id when listed, else per block.
template <class Visit>
void for_each_allowed(std::span<const float> logits, const AllowedTokens& allowed, Visit&& visit) {
  if (allowed.listed) {
    for (std::int32_t id : allowed.ids)
      if (static_cast<std::size_t>(id) < logits.size())
        visit(logits[static_cast<std::size_t>(id)], static_cast<std::size_t>(id));
    return;
  }
  for_each_allowed_block(
      logits, allowed,
      [&](const float* x, std::size_t begin, std::size_t n) {
        for (std::size_t j = 0; j < n; ++j) visit(x[j], begin + j);
      },
      [](std::size_t, std::size_t) {});
}

}  // namespace ogai::sampling
