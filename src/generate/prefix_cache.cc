#include "generate/prefix_cache.h"

#include <algorithm>

#include "generate/sequence_steps.h"

namespace ogai::generate {
namespace {

bool is_prefix(const SequenceState& shorter, const SequenceState& longer) {
  return shorter.tokens.size() <= longer.tokens.size() &&
         common_media_prefix(shorter.tokens, shorter.media, longer.tokens, longer.media) == shorter.tokens.size();
}

}  // namespace

std::optional<SequenceState> PrefixCache::lookup(std::span<const TokenId> prompt, const MediaMarks& prompt_media) {
  std::lock_guard lock(mutex_);
  auto best = entries_.end();
  std::size_t best_len = 0;
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (prompt.empty()) break;
    const std::size_t usable =
        std::min(common_media_prefix(it->state.tokens, it->state.media, prompt, prompt_media), prompt.size() - 1);
    if (usable > best_len && it->state.cache.can_rewind(static_cast<std::int64_t>(usable))) {
      best = it;
      best_len = usable;
    }
  }
  if (best == entries_.end()) {
    ++stats_.misses;
    return std::nullopt;
  }
  ++stats_.hits;
  stats_.reused_tokens += best_len;
  entries_.splice(entries_.begin(), entries_, best);
  SequenceState copy = best->state.copy();
  truncate_state(copy, best_len);
  return copy;
}

void PrefixCache::insert(SequenceState&& state) {
  const std::size_t bytes = state.cache.bytes();
  if (state.tokens.empty() || bytes > max_bytes_) return;
  std::lock_guard lock(mutex_);
  const bool rewinds = state.cache.rewinds_freely();
  for (auto it = entries_.begin(); it != entries_.end();) {
    const bool subsumed = it->state.cache.rewinds_freely() && rewinds;
    if (subsumed && is_prefix(state, it->state)) {  // nothing new: keep the longer one
      entries_.splice(entries_.begin(), entries_, it);
      return;
    }
    if (subsumed && is_prefix(it->state, state)) {
      stats_.bytes -= it->bytes;
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  entries_.push_front(Entry{std::move(state), bytes});
  stats_.bytes += bytes;
  evict_to(max_bytes_);
}

void PrefixCache::evict_to(std::size_t bytes) {
  while (stats_.bytes > bytes && !entries_.empty()) {
    stats_.bytes -= entries_.back().bytes;
    entries_.pop_back();
    ++stats_.evictions;
  }
}

PrefixCacheStats PrefixCache::stats() const {
  std::lock_guard lock(mutex_);
  PrefixCacheStats s = stats_;
  s.entries = entries_.size();
  return s;
}

}  // namespace ogai::generate
