// PrefixCache: the states (KV and tokens) of finished sequences, kept so that a later prompt
// sharing a prefix with one of them (the same system prompt; a chat client re-sending the whole
// conversation each turn) does not prefill that prefix again.
//
// lookup() finds the entry sharing the longest prefix with a prompt and returns a copy (an
// explicit copy of its KV) holding exactly that prefix, leaving at least one prompt token to feed
// (its logits start generation). Hybrid-aware through the state service's own rules: groups that
// append along the sequence rewind to any prefix; recurrent (replace) state only to the entry's
// exact length, so such an entry is reused only when all of it is a prefix of the prompt.
// Sliding-window groups: ogai keeps their KV whole (kv_cache.h; docs/architecture.md, "Sliding
// windows"), so an entry holds every position 0 .. length - 1 of every group and a prompt sharing
// P tokens reuses exactly P, however far past the window (the next position attends to
// P - window + 1 .. P, all held). Nothing is cut for the window because nothing is evicted;
// `evictable_prefix` is not acted on. (tests/generate/sliding_prefix_test.cc)
// insert() keeps a finished state, replacing entries that are a prefix of it; entries are
// evicted least recently used first while the bytes held exceed the bound.
// Cost: lookup is O(entries x prompt) token comparisons plus the copy of the chosen state.
// Thread-safe (one mutex): the engine's thread and the server's metrics read it.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <span>

#include "generate/sequence.h"

namespace ogai::generate {

struct PrefixCacheStats {
  std::uint64_t hits = 0;  // lookups that reused at least one token
  std::uint64_t misses = 0;
  std::uint64_t reused_tokens = 0;  // prompt tokens not prefilled thanks to hits
  std::uint64_t evictions = 0;
  std::size_t bytes = 0;  // KV bytes held
  std::size_t entries = 0;
};

class PrefixCache {
 public:
  explicit PrefixCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // A copy of the cached state sharing the longest usable prefix with `prompt` (at least one
  // token, and fewer than prompt.size()); nullopt when there is none.
  // Media spans count (media_marks.h): an entry computed from other media is never reused past them.
  std::optional<SequenceState> lookup(std::span<const TokenId> prompt, const MediaMarks& prompt_media = {});
  // Keeps `state` (a finished sequence's); states larger than the bound are dropped.
  void insert(SequenceState&& state);

  PrefixCacheStats stats() const;
  std::size_t max_bytes() const { return max_bytes_; }

 private:
  struct Entry {
    SequenceState state;
    std::size_t bytes = 0;
  };
  void evict_to(std::size_t bytes);

  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  PrefixCacheStats stats_;
};

}  // namespace ogai::generate
