#include "tokenizer/vocab.h"

#include <bit>

namespace ogai::tokenizer {

void StringMap::reserve(std::size_t n, std::size_t key_bytes) {
  arena_.reserve(key_bytes);
  std::size_t want = std::bit_ceil(std::max<std::size_t>(16, n * 2));
  if (want <= slots_.size()) return;
  auto old = std::move(slots_);
  slots_.assign(want, Slot{});
  std::size_t mask = want - 1;
  for (const Slot& s : old) {
    if (s.len == kEmpty) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].len != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void StringMap::find_many(const std::string_view* keys, std::size_t n, std::int32_t* out) const {
  constexpr std::size_t kBatch = 64;
  if (slots_.empty() || n > kBatch) {
    for (std::size_t i = 0; i < n; ++i) out[i] = find(keys[i]);
    return;
  }
  std::uint64_t h[kBatch];
  std::size_t at[kBatch];
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = 0; i < n; ++i) {
    h[i] = hash_bytes(keys[i]);
    __builtin_prefetch(&slots_[h[i] & mask]);
  }
  // First probe: the slot whose hash and length match (usually the first one looked at).
  for (std::size_t i = 0; i < n; ++i) {
    at[i] = SIZE_MAX;
    for (std::size_t k = h[i] & mask;; k = (k + 1) & mask) {
      const Slot& s = slots_[k];
      if (s.len == kEmpty) break;
      if (s.hash == static_cast<std::uint32_t>(h[i]) && s.len == keys[i].size()) {
        at[i] = k;
        __builtin_prefetch(arena_.data() + s.offset);
        break;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (at[i] == SIZE_MAX) {
      out[i] = -1;
      continue;
    }
    const Slot& s = slots_[at[i]];
    bool equal = std::memcmp(arena_.data() + s.offset, keys[i].data(), keys[i].size()) == 0;
    out[i] = equal ? s.value : find(keys[i]);  // a full-hash collision: probe on
  }
}

void StringMap::grow() { reserve(slots_.empty() ? 16 : slots_.size()); }

std::uint32_t StringMap::set(std::string_view key, std::int32_t value) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  std::uint64_t h = hash_bytes(key);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.len == kEmpty) {
      s.offset = static_cast<std::uint32_t>(arena_.size());
      s.len = static_cast<std::uint32_t>(key.size());
      s.hash = static_cast<std::uint32_t>(h);
      s.value = value;
      arena_.insert(arena_.end(), key.begin(), key.end());
      ++count_;
      return s.offset;
    }
    if (s.hash == static_cast<std::uint32_t>(h) && s.len == key.size() &&
        std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
      s.value = value;
      return s.offset;
    }
  }
}

void StringMap::set_many(const std::string_view* keys, const std::int32_t* values, std::size_t n,
                         std::uint32_t* offsets) {
  if ((count_ + n) * 2 > slots_.size()) reserve(count_ + n);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = 0; i < n; ++i) __builtin_prefetch(&slots_[hash_bytes(keys[i]) & mask], 1);
  for (std::size_t i = 0; i < n; ++i) offsets[i] = set(keys[i], values[i]);
}

void PairMap::reserve(std::size_t n) {
  std::size_t want = std::bit_ceil(std::max<std::size_t>(16, n * 2));
  if (want <= slots_.size()) return;
  auto old = std::move(slots_);
  slots_.assign(want, Slot{});
  std::size_t mask = want - 1;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    std::size_t i = mix(s.key) & mask;
    while (slots_[i].key != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void PairMap::grow() { reserve(slots_.empty() ? 16 : slots_.size()); }

void PairMap::insert(std::int32_t a, std::int32_t b, Value v) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  std::uint64_t key = pack(a, b);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = mix(key) & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.key == key) {
      s.value = v;
      return;
    }
    if (s.key == kEmpty) {
      s.key = key;
      s.value = v;
      ++count_;
      return;
    }
  }
}

}  // namespace ogai::tokenizer
