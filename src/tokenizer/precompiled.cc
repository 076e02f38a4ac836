// The SentencePiece "precompiled charsmap" normalizer: a darts-clone double-array trie from
// UTF-8 sequences to replacement strings, applied per grapheme cluster (and per character when
// a cluster has no entry or is 6 bytes or longer), exactly as Hugging Face applies it.
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "base/error.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

class Precompiled final : public Normalizer {
 public:
  Precompiled(std::vector<std::uint32_t> units, std::string normalized)
      : units_(std::move(units)), normalized_(std::move(normalized)) {}

  void normalize(Piece& piece) const override {
    if (!piece.origin.empty()) {
      normalize_tracked(piece);
      return;
    }
    TextBuilder b(piece);
    bool modified = false;
    std::string_view text = piece.text;
    for_each_grapheme(text, [&](std::size_t begin, std::size_t end) {
      std::string_view g = text.substr(begin, end - begin);
      if (g.size() < 6) {
        if (auto norm = transform(g)) {
          modified = true;
          b.push_bytes(*norm, begin);
          return;
        }
      }
      for (std::size_t i = 0; i < g.size();) {
        std::size_t at = i;
        i += utf8_len(static_cast<unsigned char>(g[i]));
        std::string_view part = g.substr(at, i - at);
        auto norm = transform(part);
        modified |= norm.has_value();
        b.push_bytes(norm ? *norm : part, begin + at);
      }
    });
    if (modified) piece = b.finish();
  }

 private:
  // The same text, with origins computed from Hugging Face's list of changes (a replacement that
  // shrinks charges the difference to the previous character, even across graphemes).
  void normalize_tracked(Piece& piece) const {
    std::vector<std::pair<char32_t, int>> changes;
    bool modified = false;
    auto replace = [&](std::string_view old_part, std::string_view new_part) {
      modified = true;
      int diff = static_cast<int>(count_chars(new_part)) - static_cast<int>(count_chars(old_part));
      for (std::size_t i = 0; i < new_part.size();) changes.push_back({next_char(new_part, i), 0});
      if (diff > 0)
        for (int k = 0; k < diff; ++k) changes[changes.size() - 1 - k].second = 1;
      else if (diff < 0 && !changes.empty())
        changes.back().second += diff;
    };
    std::string_view text = piece.text;
    for_each_grapheme(text, [&](std::size_t begin, std::size_t end) {
      std::string_view g = text.substr(begin, end - begin);
      if (g.size() < 6) {
        if (auto norm = transform(g)) return replace(g, *norm);
      }
      for (std::size_t i = 0; i < g.size();) {
        std::size_t at = i;
        char32_t c = next_char(g, i);
        std::string_view part = g.substr(at, i - at);
        if (auto norm = transform(part)) replace(part, *norm);
        else changes.push_back({c, 0});
      }
    });
    if (modified) apply_transformations(piece, changes);
  }

  // The replacement of the shortest trie key that prefixes `chunk`, if any.
  std::optional<std::string_view> transform(std::string_view chunk) const {
    if (units_.empty()) return std::nullopt;
    std::size_t pos = offset(units_[0]);
    for (char ch : chunk) {
      auto c = static_cast<unsigned char>(ch);
      if (c == 0) break;
      pos ^= c;
      if (pos >= units_.size()) return std::nullopt;
      std::uint32_t unit = units_[pos];
      if (label(unit) != c) return std::nullopt;
      pos ^= offset(unit);
      if ((unit >> 8) & 1) {
        if (pos >= units_.size()) return std::nullopt;
        std::size_t index = units_[pos] & 0x7FFFFFFFu;
        if (index >= normalized_.size()) return std::nullopt;
        std::size_t end = normalized_.find('\0', index);
        if (end == std::string::npos) end = normalized_.size();
        return std::string_view(normalized_).substr(index, end - index);
      }
    }
    return std::nullopt;
  }
  static std::uint32_t label(std::uint32_t unit) { return unit & ((1u << 31) | 0xFFu); }
  static std::size_t offset(std::uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

  std::vector<std::uint32_t> units_;
  std::string normalized_;
};

}  // namespace

std::unique_ptr<Normalizer> make_precompiled(std::string_view blob, const JsonValue& where) {
  if (blob.size() < 4) where.fail_invalid("precompiled_charsmap is too short");
  std::uint32_t trie_size;
  std::memcpy(&trie_size, blob.data(), 4);  // little-endian, as on every supported host
  if (trie_size % 4 != 0 || trie_size > blob.size() - 4)
    where.fail_invalid("precompiled_charsmap has an invalid trie size");
  std::vector<std::uint32_t> units(trie_size / 4);
  std::memcpy(units.data(), blob.data() + 4, trie_size);
  std::string normalized(blob.substr(4 + trie_size));
  if (find_invalid_utf8(normalized)) where.fail_invalid("precompiled_charsmap strings are not UTF-8");
  return std::make_unique<Precompiled>(std::move(units), std::move(normalized));
}

}  // namespace ogai::tokenizer
