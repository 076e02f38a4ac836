#include "tokenizer/unicode.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <utf8proc.h>

#include <cstdlib>

#include "base/error.h"
#include "tokenizer/unicode16.h"

namespace ogai::tokenizer {
namespace {

std::uint32_t category_mask(char32_t c) { return U_GET_GC_MASK(static_cast<UChar32>(c)); }

// The Unicode version (major * 10 + minor) that assigned `c`.
int age(char32_t c) {
  UVersionInfo v;
  u_charAge(static_cast<UChar32>(c), v);
  return v[0] * 10 + v[1];
}

}  // namespace

bool is_whitespace(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool is_alphabetic(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_ALPHABETIC);
}

bool is_numeric(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return (category_mask(c) & U_GC_N_MASK) != 0 || is_std_numeric_new(c);
}

bool is_number(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return (category_mask(c) & U_GC_N_MASK) != 0 || is_onig_number_new(c);
}

bool is_letter(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return (category_mask(c) & U_GC_L_MASK) != 0 || is_onig_letter_new(c);
}

bool is_alphanumeric(char32_t c) { return is_alphabetic(c) || is_numeric(c); }

bool is_word_char(char32_t c) {
  if (c < 0x80) return c == '_' || is_alphabetic(c) || (c >= '0' && c <= '9');
  if (c == 0x200C || c == 0x200D) return true;
  return is_alphabetic(c) || (category_mask(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0 ||
         is_std_word_new(c);
}

bool is_punctuation(char32_t c) {
  if (c == 0x166D || c == 0x111C9) return true;  // punctuation in Unicode 8.0, recategorized since
  return (category_mask(c) & U_GC_P_MASK) != 0 && (c < 0x80 || age(c) <= 80);
}

bool is_bert_punctuation(char32_t c) {
  bool ascii = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return ascii || is_punctuation(c);
}

bool is_mark_nonspacing(char32_t c) {
  if (c == 0x1734) return true;  // Mn in Unicode 8.0, Mc since
  if (c == 0x1885 || c == 0x1886 || c == 0xA9BD || c == 0x111C9) return false;  // not Mn in Unicode 8.0
  return (category_mask(c) & U_GC_MN_MASK) != 0 && age(c) <= 80;
}

bool is_mark(char32_t c) {
  if (c == 0x1CF2 || c == 0x1CF3) return true;  // marks in Unicode 9.0
  if (c == 0x111C9) return false;
  return (category_mask(c) & U_GC_M_MASK) != 0 && age(c) <= 90;
}

bool is_other(char32_t c) { return (category_mask(c) & U_GC_C_MASK) != 0; }

bool is_bert_control(char32_t c) {
  std::uint32_t m = category_mask(c);
  if (m & (U_GC_CC_MASK | U_GC_CO_MASK | U_GC_CS_MASK)) return true;
  return (m & U_GC_CF_MASK) != 0 && age(c) <= 80;
}

bool is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

int script_of(char32_t c) {
  if (c == ' ') return -1;
  switch (c) {  // scripts that changed after Unicode 9.0
    case 0x0589: case 0x061C: return USCRIPT_COMMON;
    case 0x0953: case 0x0954: return USCRIPT_DEVANAGARI;
  }
  UErrorCode status = U_ZERO_ERROR;
  UScriptCode s = uscript_getScript(static_cast<UChar32>(c), &status);
  if (U_FAILURE(status) || s == USCRIPT_UNKNOWN || age(c) > 90) return -1;
  return static_cast<int>(s);
}

void append_lowercase(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  } else if (c == 0x130) {
    out += "i\xCC\x87";
  } else if (char32_t l = std_lowercase_new(c); l != c) {
    append_utf8(out, l);
  } else {
    append_utf8(out, static_cast<char32_t>(u_tolower(static_cast<UChar32>(c))));
  }
}

namespace {

std::string utf8proc_normalize(std::string_view text, NormalForm form) {
  int options = UTF8PROC_STABLE;
  switch (form) {
    case NormalForm::kNFC: options |= UTF8PROC_COMPOSE; break;
    case NormalForm::kNFD: options |= UTF8PROC_DECOMPOSE; break;
    case NormalForm::kNFKC: options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT; break;
    case NormalForm::kNFKD: options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT; break;
  }
  utf8proc_uint8_t* result = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                    static_cast<utf8proc_ssize_t>(text.size()), &result,
                                    static_cast<utf8proc_option_t>(options));
  if (n < 0) fail(ErrorCode::kInternal, "tokenizer", "Unicode normalization failed: {}", utf8proc_errmsg(n));
  std::string out(reinterpret_cast<const char*>(result), static_cast<std::size_t>(n));
  std::free(result);
  return out;
}

}  // namespace

// Hugging Face normalizes with Unicode 9.0 data: a character assigned later has no decomposition
// and combining class 0 there, so it is kept as is and blocks reordering and composition across
// it. Normalizing the runs between such characters separately gives exactly that.
std::string normalize_form(std::string_view text, NormalForm form) {
  bool ascii = true;
  for (char ch : text) ascii &= static_cast<unsigned char>(ch) < 0x80;
  if (ascii) return std::string(text);
  std::string out;
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t at = i;
    char32_t c = next_char(text, i);
    if (c < 0x80) continue;
    int a = age(c);
    if (a <= 90 && a > 0) continue;
    out += utf8proc_normalize(text.substr(run, at - run), form);
    out.append(text.substr(at, i - at));
    run = i;
  }
  if (run == 0) return utf8proc_normalize(text, form);
  out += utf8proc_normalize(text.substr(run), form);
  return out;
}

bool grapheme_break(char32_t c1, char32_t c2, std::int32_t* state) {
  // Marks assigned after utf8proc's Unicode version extend the cluster (Extend / SpacingMark).
  // Not after a control character: there is always a break after CR, LF and controls (GB4).
  bool control = c1 < 0x20 || (c1 >= 0x7F && c1 < 0xA0) || c1 == 0x2028 || c1 == 0x2029;
  if (!control && is_onig_mark_new(c2)) return false;
  return utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(c1), static_cast<utf8proc_int32_t>(c2),
                                          state);
}

}  // namespace ogai::tokenizer
