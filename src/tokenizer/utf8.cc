#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

// Length of the longest valid prefix of a UTF-8 sequence starting at s[i] (0 when s[i] cannot
// start one), and whether that prefix is a complete character.
struct Prefix {
  std::size_t len;
  bool complete;
};

Prefix valid_prefix(std::string_view s, std::size_t i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return {1, true};
  std::size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) need = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return {0, false};
  }
  std::size_t n = 1;
  while (n < need && i + n < s.size()) {
    auto b = static_cast<unsigned char>(s[i + n]);
    bool ok = n == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) break;
    ++n;
  }
  return {n, n == need};
}

}  // namespace

char32_t prev_char(std::string_view s, std::size_t& i) {
  std::size_t start = i - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  std::size_t k = start;
  char32_t cp = next_char(s, k);
  i = start;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::size_t count_chars(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::optional<std::size_t> find_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    Prefix p = valid_prefix(s, i);
    if (!p.complete) return i;
    i += p.len;
  }
  return std::nullopt;
}

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  std::size_t i = 0;
  while (i < bytes.size()) {
    Prefix p = valid_prefix(bytes, i);
    if (p.complete) {
      out.append(bytes.substr(i, p.len));
      i += p.len;
    } else {
      out += "\xEF\xBF\xBD";
      i += p.len == 0 ? 1 : p.len;
    }
  }
  return out;
}

bool ends_with_incomplete_utf8(std::string_view bytes) {
  std::size_t start = bytes.size();
  for (std::size_t k = 0; k < 3 && start > 0; ++k) {
    --start;
    auto c = static_cast<unsigned char>(bytes[start]);
    if ((c & 0xC0) != 0x80) {
      Prefix p = valid_prefix(bytes, start);
      return !p.complete && start + p.len == bytes.size() && p.len > 0;
    }
  }
  return false;
}

}  // namespace ogai::tokenizer
