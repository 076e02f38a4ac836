// UTF-8 helpers for the tokenizer: decoding and encoding code points, validation, and lossy
// conversion of arbitrary bytes with the "maximal subpart" rule (one U+FFFD per invalid
// subsequence), the same rule Hugging Face's Rust tokenizers use when decoding bytes.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ogai::tokenizer {

// Length in bytes of the UTF-8 sequence that starts with `lead` (1 for bytes that cannot start one).
inline std::size_t utf8_len(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Decodes the code point at s[i] of VALID UTF-8 and advances i past it.
inline char32_t next_char(std::string_view s, std::size_t& i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  char32_t cp;
  if (c < 0x80) { cp = c; i += 1; }
  else if (c < 0xE0) { cp = (char32_t(c & 0x1F) << 6) | (b(1) & 0x3F); i += 2; }
  else if (c < 0xF0) { cp = (char32_t(c & 0x0F) << 12) | (char32_t(b(1) & 0x3F) << 6) | (b(2) & 0x3F); i += 3; }
  else {
    cp = (char32_t(c & 0x07) << 18) | (char32_t(b(1) & 0x3F) << 12) | (char32_t(b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    i += 4;
  }
  return cp;
}

// Decodes the code point that ends at s[i-1] of VALID UTF-8 and moves i back to its start.
char32_t prev_char(std::string_view s, std::size_t& i);

void append_utf8(std::string& out, char32_t cp);
inline std::string utf8(char32_t cp) {
  std::string s;
  append_utf8(s, cp);
  return s;
}

// Number of code points in VALID UTF-8.
std::size_t count_chars(std::string_view s);

// The byte offset of the first invalid UTF-8 sequence, or nullopt when `s` is valid.
std::optional<std::size_t> find_invalid_utf8(std::string_view s);

// Bytes -> text, replacing each maximal invalid subsequence with U+FFFD.
std::string utf8_lossy(std::string_view bytes);

// True when `bytes` ends in the middle of a sequence that more bytes could still complete.
bool ends_with_incomplete_utf8(std::string_view bytes);

}  // namespace ogai::tokenizer
