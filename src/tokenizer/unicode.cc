#include "tokenizer/unicode.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <utf8proc.h>

#include <cstdlib>

#include "base/error.h"

namespace ogai::tokenizer {
namespace {

std::uint32_t category_mask(char32_t c) { return U_GET_GC_MASK(static_cast<UChar32>(c)); }

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
  return (category_mask(c) & U_GC_N_MASK) != 0;
}

bool is_letter(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return (category_mask(c) & U_GC_L_MASK) != 0;
}

bool is_alphanumeric(char32_t c) { return is_alphabetic(c) || is_numeric(c); }

bool is_word_char(char32_t c) {
  if (c < 0x80) return c == '_' || is_alphabetic(c) || (c >= '0' && c <= '9');
  if (c == 0x200C || c == 0x200D) return true;
  return is_alphabetic(c) || (category_mask(c) & (U_GC_M_MASK | U_GC_ND_MASK | U_GC_PC_MASK)) != 0;
}

bool is_punctuation(char32_t c) { return (category_mask(c) & U_GC_P_MASK) != 0; }

bool is_bert_punctuation(char32_t c) {
  bool ascii = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return ascii || is_punctuation(c);
}

bool is_mark_nonspacing(char32_t c) { return (category_mask(c) & U_GC_MN_MASK) != 0; }

bool is_mark(char32_t c) { return (category_mask(c) & U_GC_M_MASK) != 0; }

bool is_other(char32_t c) { return (category_mask(c) & U_GC_C_MASK) != 0; }

bool is_control_or_format(char32_t c) {
  return (category_mask(c) & (U_GC_CC_MASK | U_GC_CF_MASK | U_GC_CO_MASK | U_GC_CS_MASK)) != 0;
}

bool is_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

int script_of(char32_t c) {
  UErrorCode status = U_ZERO_ERROR;
  UScriptCode s = uscript_getScript(static_cast<UChar32>(c), &status);
  return U_SUCCESS(status) ? static_cast<int>(s) : static_cast<int>(USCRIPT_UNKNOWN);
}

void append_lowercase(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
  } else if (c == 0x130) {
    out += "i\xCC\x87";
  } else {
    append_utf8(out, static_cast<char32_t>(u_tolower(static_cast<UChar32>(c))));
  }
}

std::string normalize_form(std::string_view text, NormalForm form) {
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

bool grapheme_break(char32_t c1, char32_t c2, std::int32_t* state) {
  return utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(c1), static_cast<utf8proc_int32_t>(c2),
                                          state);
}

}  // namespace ogai::tokenizer
