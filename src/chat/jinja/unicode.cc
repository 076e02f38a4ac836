#include "chat/jinja/unicode.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/edits.h>

#include <algorithm>
#include <memory>

namespace ogai::chat::jinja {

char32_t decode_utf8(std::string_view s, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char b = byte(i);
  if (b < 0x80) return ++i, b;
  int extra = (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
  if (extra < 0 || i + extra >= s.size()) return ++i, 0xFFFD;
  char32_t cp = b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return ++i, 0xFFFD;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  i += extra + 1;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_js_space(char32_t cp) {
  if (cp <= 0x20) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

std::size_t js_space_run_after(std::string_view s, std::size_t begin) {
  std::size_t i = begin;
  while (i < s.size()) {
    std::size_t next = i;
    if (!is_js_space(decode_utf8(s, next))) break;
    i = next;
  }
  return i - begin;
}

std::size_t js_space_run_before(std::string_view s, std::size_t end, std::size_t floor) {
  std::size_t i = end;
  while (i > floor) {
    std::size_t start = i - 1;
    while (start > floor && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    std::size_t probe = start;
    if (!is_js_space(decode_utf8(s, probe)) || probe != i) break;
    i = start;
  }
  return end - i;
}

std::string_view js_trim(std::string_view s, bool left, bool right) {
  if (left) s.remove_prefix(js_space_run_after(s, 0));
  if (right) s.remove_suffix(js_space_run_before(s, s.size(), 0));
  return s;
}

bool is_ascii_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t utf16_length(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) n += decode_utf8(s, i) >= 0x10000 ? 2 : 1;
  return n;
}

std::size_t code_point_count(std::string_view s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) decode_utf8(s, i), ++n;
  return n;
}

namespace {

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

template <typename Map>
std::string map_case(std::string_view s, Map map, char lo, char hi, int delta) {
  if (is_ascii(s)) {
    std::string out(s);
    for (char& c : out)
      if (c >= lo && c <= hi) c = static_cast<char>(c + delta);
    return out;
  }
  std::string out;
  icu::StringByteSink<std::string> sink(&out);
  UErrorCode status = U_ZERO_ERROR;
  map("", 0, icu::StringPiece(s.data(), static_cast<int32_t>(s.size())), sink, nullptr, status);
  return U_SUCCESS(status) ? out : std::string(s);
}

}  // namespace

std::string to_upper(std::string_view s) {
  auto upper = [](const char* locale, uint32_t options, icu::StringPiece src, icu::ByteSink& sink, icu::Edits* edits,
                  UErrorCode& status) { icu::CaseMap::utf8ToUpper(locale, options, src, sink, edits, status); };
  return map_case(s, upper, 'a', 'z', -32);
}

std::string to_lower(std::string_view s) {
  auto lower = [](const char* locale, uint32_t options, icu::StringPiece src, icu::ByteSink& sink, icu::Edits* edits,
                  UErrorCode& status) { icu::CaseMap::utf8ToLower(locale, options, src, sink, edits, status); };
  return map_case(s, lower, 'A', 'Z', 32);
}

bool python_printable(char32_t cp) {
  if (cp == ' ') return true;
  switch (u_charType(static_cast<UChar32>(cp))) {
    case U_CONTROL_CHAR: case U_FORMAT_CHAR: case U_SURROGATE: case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED: case U_LINE_SEPARATOR: case U_PARAGRAPH_SEPARATOR: case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

int locale_compare(std::string_view a, std::string_view b) {
  struct Closer {
    void operator()(UCollator* c) const { ucol_close(c); }
  };
  thread_local std::unique_ptr<UCollator, Closer> collator = [] {
    UErrorCode status = U_ZERO_ERROR;
    return std::unique_ptr<UCollator, Closer>(ucol_open("", &status));
  }();
  if (!collator) return a.compare(b) < 0 ? -1 : a == b ? 0 : 1;
  UErrorCode status = U_ZERO_ERROR;
  UCollationResult r = ucol_strcollUTF8(collator.get(), a.data(), static_cast<int32_t>(a.size()), b.data(),
                                        static_cast<int32_t>(b.size()), &status);
  return r == UCOL_LESS ? -1 : r == UCOL_GREATER ? 1 : 0;
}

}  // namespace ogai::chat::jinja
