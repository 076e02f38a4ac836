#include "tokenizer/scanner.h"

#include <array>

#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {

const std::string_view kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

namespace {

constexpr std::string_view kCl100kPattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
constexpr std::string_view kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

enum Cls : std::uint8_t { kOther = 0, kLetter = 1, kNumber = 2, kSpace = 3 };

struct AsciiTable {
  std::array<std::uint8_t, 128> cls{};
  AsciiTable() {
    for (int c = 0; c < 128; ++c) {
      if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') cls[c] = kLetter;
      else if (c >= '0' && c <= '9') cls[c] = kNumber;
      else if (c == ' ' || (c >= 9 && c <= 13)) cls[c] = kSpace;
      else cls[c] = kOther;
    }
  }
};
const AsciiTable kAscii;

inline Cls classify(char32_t c) {
  if (c < 128) return static_cast<Cls>(kAscii.cls[c]);
  if (is_whitespace(c)) return kSpace;
  if (is_letter(c)) return kLetter;
  if (is_number(c)) return kNumber;
  return kOther;
}

// A cursor over valid UTF-8 that reads one character ahead.
struct Text {
  std::string_view s;
  // Class of the character at i and the index after it.
  Cls at(std::size_t i, std::size_t* next, char32_t* cp = nullptr) const {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 128) {
      *next = i + 1;
      if (cp) *cp = b;
      return static_cast<Cls>(kAscii.cls[b]);
    }
    std::size_t k = i;
    char32_t c = next_char(s, k);
    *next = k;
    if (cp) *cp = c;
    return classify(c);
  }
  // End of the run of characters of class `cls` starting at i.
  std::size_t run(std::size_t i, Cls cls) const {
    while (i < s.size()) {
      std::size_t n;
      if (at(i, &n) != cls) break;
      i = n;
    }
    return i;
  }
  // End of the run of characters of class `cls` starting at i, at most `max` characters.
  std::size_t run_max(std::size_t i, Cls cls, int max) const {
    for (int k = 0; k < max && i < s.size(); ++k) {
      std::size_t n;
      if (at(i, &n) != cls) break;
      i = n;
    }
    return i;
  }
  // Matches \s+(?!\S)|\s+ at i (a whitespace character): the end of the match.
  std::size_t spaces(std::size_t i) const {
    std::size_t j = run(i, kSpace);
    if (j == s.size()) return j;
    std::size_t last = j;
    prev_char(s, last);
    return last > i ? last : j;
  }
};

// 's 't 're 've 'm 'll 'd at i (s[i] == '\''): the end, or 0.
std::size_t contraction(std::string_view s, std::size_t i, bool fold) {
  auto lower = [&](std::size_t k) -> char {
    if (k >= s.size()) return 0;
    char c = s[k];
    if (fold && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    return c;
  };
  char a = lower(i + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
  char b = lower(i + 2);
  if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
  // U+017F LATIN SMALL LETTER LONG S folds to 's'.
  if (fold && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xC5 &&
      static_cast<unsigned char>(s[i + 2]) == 0xBF)
    return i + 3;
  return 0;
}

std::size_t gpt2_match(const Text& t, std::size_t i) {
  std::string_view s = t.s;
  if (s[i] == '\'') {
    if (std::size_t e = contraction(s, i, false)) return e;
  }
  std::size_t next;
  Cls c = t.at(i, &next);
  if (s[i] == ' ' && next < s.size()) {
    std::size_t n2;
    Cls c2 = t.at(next, &n2);
    if (c2 != kSpace) return t.run(next, c2);
  }
  if (c != kSpace) return t.run(i, c);
  return t.spaces(i);
}

template <int kMaxDigits>
std::size_t cl100k_match(const Text& t, std::size_t i) {
  std::string_view s = t.s;
  if (s[i] == '\'') {
    if (std::size_t e = contraction(s, i, true)) return e;
  }
  std::size_t next;
  char32_t cp;
  Cls c = t.at(i, &next, &cp);
  if (c == kLetter) return t.run(i, kLetter);
  if (c != kNumber && cp != '\r' && cp != '\n' && next < s.size()) {
    std::size_t n2;
    if (t.at(next, &n2) == kLetter) return t.run(next, kLetter);
  }
  if (c == kNumber) return t.run_max(i, kNumber, kMaxDigits);
  std::size_t punct_start = s[i] == ' ' && next < s.size() ? next : i;
  std::size_t n3;
  if (punct_start < s.size() && t.at(punct_start, &n3) == kOther) {
    std::size_t j = t.run(punct_start, kOther);
    while (j < s.size() && (s[j] == '\r' || s[j] == '\n')) ++j;
    return j;
  }
  // c is whitespace here.
  std::size_t j = t.run(i, kSpace);
  for (std::size_t p = j; p > i; --p)
    if (s[p - 1] == '\r' || s[p - 1] == '\n') return p;
  return t.spaces(i);
}

template <std::size_t (*Match)(const Text&, std::size_t)>
void scan(std::string_view text, Matches& out) {
  Text t{text};
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t e = Match(t, i);
    out.emplace_back(i, e);
    i = e;
  }
}

}  // namespace

void scan_gpt2(std::string_view text, Matches& out) { scan<gpt2_match>(text, out); }
void scan_cl100k(std::string_view text, Matches& out) { scan<cl100k_match<3>>(text, out); }
void scan_qwen2(std::string_view text, Matches& out) { scan<cl100k_match<1>>(text, out); }

Scanner find_scanner(std::string_view pattern) {
  if (pattern == kGpt2Pattern) return scan_gpt2;
  if (pattern == kCl100kPattern) return scan_cl100k;
  if (pattern == kQwen2Pattern) return scan_qwen2;
  return nullptr;
}

}  // namespace ogai::tokenizer
