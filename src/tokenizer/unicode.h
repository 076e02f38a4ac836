// Unicode character properties and transforms with the meanings Hugging Face's tokenizers give
// them (Rust `char` methods, the regex crate's \w, Oniguruma's \p{L}/\p{N}/\s). Properties come
// from ICU; normalization forms and grapheme clusters from utf8proc. All functions are pure and
// thread-safe. Text arguments are valid UTF-8.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ogai::tokenizer {

bool is_whitespace(char32_t c);      // White_Space (Rust char::is_whitespace, regex \s)
bool is_alphabetic(char32_t c);      // Alphabetic
bool is_numeric(char32_t c);         // Nd | Nl | No (Rust char::is_numeric)
bool is_number(char32_t c);          // \p{N} as Oniguruma sees it
bool is_letter(char32_t c);          // \p{L} as Oniguruma sees it
bool is_alphanumeric(char32_t c);    // Rust char::is_alphanumeric
bool is_word_char(char32_t c);       // regex \w: Alphabetic | M* | Nd | Pc | Join_Control
// Hugging Face takes some properties from old Unicode tables, and these reproduce them (found by
// comparing every code point against the library): punctuation, controls and nonspacing marks
// as of Unicode 8.0 (the unicode_categories crate), combining marks as of Unicode 9.0.
bool is_punctuation(char32_t c);       // P* as of Unicode 8.0
bool is_bert_punctuation(char32_t c);  // ASCII punctuation or is_punctuation
bool is_mark_nonspacing(char32_t c);   // Mn as of Unicode 8.0 (BertNormalizer's accent stripping)
bool is_mark(char32_t c);              // M* as of Unicode 9.0 (the StripAccents normalizer)
bool is_bert_control(char32_t c);      // Cc, Co, Cs, and Cf as of Unicode 8.0 (BertNormalizer clean_text)
bool is_chinese_char(char32_t c);    // the CJK blocks BERT isolates

// The script of a code point as Hugging Face's UnicodeScripts sees it (its table is Unicode 9.0):
// an ICU UScriptCode, or -1 ("Any") for characters unassigned in Unicode 9.0 and for U+0020.
int script_of(char32_t c);

// Appends the full lowercase mapping of `c` (U+0130 maps to two code points).
void append_lowercase(std::string& out, char32_t c);

enum class NormalForm { kNFC, kNFD, kNFKC, kNFKD };
// Unicode normalization of valid UTF-8.
std::string normalize_form(std::string_view text, NormalForm form);

// Calls f(begin, end) for each extended grapheme cluster of `text`, in order.
template <typename F>
void for_each_grapheme(std::string_view text, F&& f);

// Implementation detail of for_each_grapheme: whether there is a cluster break between c1 and
// c2, given the running state.
bool grapheme_break(char32_t c1, char32_t c2, std::int32_t* state);

}  // namespace ogai::tokenizer

#include "tokenizer/utf8.h"

namespace ogai::tokenizer {

template <typename F>
void for_each_grapheme(std::string_view text, F&& f) {
  std::size_t i = 0, start = 0;
  std::int32_t state = 0;
  char32_t prev = 0;
  bool first = true;
  while (i < text.size()) {
    std::size_t at = i;
    char32_t c = next_char(text, i);
    if (!first && grapheme_break(prev, c, &state)) {
      f(start, at);
      start = at;
    }
    first = false;
    prev = c;
  }
  if (!first) f(start, text.size());
}

}  // namespace ogai::tokenizer
