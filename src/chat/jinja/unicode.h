// UTF-8 text helpers with the semantics HF's template engines show: JavaScript's whitespace set
// (trim, split, `-` whitespace control), UTF-16 lengths, full Unicode case mapping (ICU root
// locale, the mapping JavaScript's toUpperCase/toLowerCase use) and Python's printable test.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ogai::chat::jinja {

// Decodes the code point at s[i] and advances i past it. A malformed byte decodes as U+FFFD and
// advances by one byte.
char32_t decode_utf8(std::string_view s, std::size_t& i);
void append_utf8(std::string& out, char32_t cp);

// JavaScript's \s: ASCII whitespace, NBSP, U+1680, U+2000-U+200A, U+2028/9, U+202F, U+205F,
// U+3000, U+FEFF.
bool is_js_space(char32_t cp);
std::string_view js_trim(std::string_view s, bool left, bool right);
// Length of the whitespace run that ends at s.size() (in bytes), never reaching before `floor`.
std::size_t js_space_run_before(std::string_view s, std::size_t end, std::size_t floor);
// Length of the whitespace run starting at `begin` (in bytes).
std::size_t js_space_run_after(std::string_view s, std::size_t begin);

bool is_ascii_word(char c);  // JavaScript's \w without the u flag: [A-Za-z0-9_]
bool is_ascii_digit(char c);

std::size_t utf16_length(std::string_view s);       // JavaScript's String.length
std::size_t code_point_count(std::string_view s);  // Python's len(str)

std::string to_upper(std::string_view s);  // full case mapping (ß -> SS)
std::string to_lower(std::string_view s);
bool python_printable(char32_t cp);  // Python's str.isprintable for one character

// Compares two strings the way JavaScript's localeCompare does by default (ICU root collation).
int locale_compare(std::string_view a, std::string_view b);

}  // namespace ogai::chat::jinja
