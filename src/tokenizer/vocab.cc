#include "tokenizer/vocab.h"

#include <bit>

namespace ogai::tokenizer {

void StringMap::reserve(std::size_t n, std::size_t key_bytes) {
  arena_.reserve(key_bytes);
  std::size_t want = std::bit_ceil(std::max<std::size_t>(16, n * 2));
  if (want <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(want, Slot{});
  std::size_t mask = want - 1;
  for (const Slot& s : old) {
    if (s.len == kEmpty) continue;
    std::size_t i = s.hash & mask;
    while (slots_[i].len != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void StringMap::grow() { reserve(slots_.empty() ? 16 : slots_.size()); }

void StringMap::set(std::string_view key, std::int32_t value) {
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
      arena_.append(key);
      ++count_;
      return;
    }
    if (s.hash == static_cast<std::uint32_t>(h) && s.len == key.size() &&
        std::memcmp(arena_.data() + s.offset, key.data(), key.size()) == 0) {
      s.value = value;
      return;
    }
  }
}

void PairMap::reserve(std::size_t n) {
  std::size_t want = std::bit_ceil(std::max<std::size_t>(16, n * 2));
  if (want <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
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
