// Compact hash tables for vocabularies: string -> id (tokens) and (id, id) -> (rank, id) (BPE
// merges). Open addressing over one string arena, so a 250k-entry vocabulary loads in a few
// milliseconds and a lookup costs one hash and usually one comparison. Built at load time, then
// read-only and safe to share across threads.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/huge_pages.h"

namespace ogai::tokenizer {

inline std::uint64_t hash_bytes(std::string_view s) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull ^ (s.size() * 0xFF51AFD7ED558CCDull);
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
  }
  std::uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 32;
  return h;
}

// string -> int32. Later insertions of the same key replace the value (like a JSON object read
// into a map).
class StringMap {
 public:
  // Room for n keys of about `key_bytes` bytes in all.
  void reserve(std::size_t n, std::size_t key_bytes = 0);
  // Stores key -> value; returns where the key's bytes live (see key_at()).
  std::uint32_t set(std::string_view key, std::int32_t value);
  // set() of n entries, prefetching their slots first.
  void set_many(const std::string_view* keys, const std::int32_t* values, std::size_t n, std::uint32_t* offsets);
  std::string_view key_at(std::uint32_t offset, std::size_t len) const { return {arena_.data() + offset, len}; }
  // The value, or -1 when absent.
  std::int32_t find(std::string_view key) const {
    if (slots_.empty()) return -1;
    std::uint64_t h = hash_bytes(key);
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.len == kEmpty) return -1;
      if (s.hash == static_cast<std::uint32_t>(h) && s.len == key.size() &&
          std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0)
        return s.value;
    }
  }
  bool contains(std::string_view key) const { return find(key) >= 0; }
  // find() of n keys at once, prefetching their slots and keys first to hide memory latency
  // (used when loading hundreds of thousands of merges).
  void find_many(const std::string_view* keys, std::size_t n, std::int32_t* out) const;
  std::size_t size() const { return count_; }
  // Calls f(key, value) for every entry, in no particular order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.len != kEmpty) f(std::string_view(arena_.data() + s.offset, s.len), s.value);
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    std::uint32_t offset = 0, len = kEmpty, hash = 0;
    std::int32_t value = -1;
  };
  void grow();
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::vector<char, HugePageAllocator<char>> arena_;
  std::size_t count_ = 0;
};

// (left id, right id) -> (rank, merged id), for BPE merges.
class PairMap {
 public:
  struct Value {
    std::uint32_t rank;
    std::int32_t id;
  };
  void reserve(std::size_t n);
  // A later duplicate of a pair replaces the earlier one (as Hugging Face builds its merge map).
  void insert(std::int32_t a, std::int32_t b, Value v);
  const Value* find(std::int32_t a, std::int32_t b) const {
    if (slots_.empty()) return nullptr;
    std::uint64_t key = pack(a, b);
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = mix(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  std::size_t size() const { return count_; }
  // Hints that (a, b) is about to be inserted or looked up.
  void prefetch(std::int32_t a, std::int32_t b) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[mix(pack(a, b)) & (slots_.size() - 1)]);
  }

 private:
  static constexpr std::uint64_t kEmpty = ~0ull;
  static std::uint64_t pack(std::int32_t a, std::int32_t b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }
  static std::uint64_t mix(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    return k;
  }
  struct Slot {
    std::uint64_t key = kEmpty;
    Value value{};
  };
  void grow();
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  std::size_t count_ = 0;
};

}  // namespace ogai::tokenizer
