// Unicode data newer than ICU 72 (Unicode 15.0), for the properties the tokenizer reads (see
// unicode16.cc for which tables of Hugging Face's library each one mirrors). Pure; thread-safe.
#pragma once

namespace ogai::tokenizer {

bool is_onig_letter_new(char32_t c);   // Oniguruma \p{L}, characters ICU lacks
bool is_onig_number_new(char32_t c);   // Oniguruma \p{N} (all of them Nd)
bool is_onig_mark_new(char32_t c);     // Oniguruma \p{M}
bool is_std_word_new(char32_t c);      // the regex crate's \w
bool is_std_numeric_new(char32_t c);   // Rust char::is_numeric
char32_t std_lowercase_new(char32_t c);  // Rust char::to_lowercase, else c

}  // namespace ogai::tokenizer
