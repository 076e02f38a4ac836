#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/regex.h"

#include <pcre2.h>

#include "base/error.h"

namespace ogai::tokenizer {
namespace {

// Oniguruma's \s (Unicode White_Space) as class members.
constexpr std::string_view kSpaceMembers =
    "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";
// Oniguruma's \w as Hugging Face's build behaves (measured against it): Alphabetic | Mark |
// Decimal_Number | Connector_Punctuation; outside a character class it also matches the
// Latin-1 digits and fractions U+00B2, U+00B3, U+00B9 and U+00BC-U+00BE.
constexpr std::string_view kWordMembers = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}";
constexpr std::string_view kLatin1Numbers = "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}";

struct JitStack {
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  pcre2_match_data* data = nullptr;
  JitStack() {
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(64 * 1024, 16 * 1024 * 1024, nullptr);
    pcre2_jit_stack_assign(context, nullptr, stack);
    data = pcre2_match_data_create(1, nullptr);
  }
  ~JitStack() {
    pcre2_match_data_free(data);
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
  }
};

JitStack& thread_scratch() {
  thread_local JitStack scratch;
  return scratch;
}

}  // namespace

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

std::string translate_oniguruma(std::string_view p) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      char e = p[i + 1];
      ++i;
      if (e == 's') out += in_class ? std::string(kSpaceMembers) : "[" + std::string(kSpaceMembers) + "]";
      else if (e == 'S' && !in_class) out += "[^" + std::string(kSpaceMembers) + "]";
      else if (e == 'w') out += in_class ? std::string(kWordMembers) : "[" + std::string(kWordMembers) + std::string(kLatin1Numbers) + "]";
      else if (e == 'W' && !in_class) out += "[^" + std::string(kWordMembers) + std::string(kLatin1Numbers) + "]";
      else if (e == 'd') out += in_class ? "\\p{Nd}" : "\\p{Nd}";
      else if (e == 'D' && !in_class) out += "\\P{Nd}";
      else out += {'\\', e};
      continue;
    }
    if (c == '[' && !in_class) in_class = true;
    else if (c == ']' && in_class && !(out.size() && (out.back() == '[' || out.ends_with("[^")))) in_class = false;
    out += c;
  }
  return out;
}

std::string regex_escape(std::string_view literal) {
  std::string out;
  for (char c : literal) {
    if (std::string_view("\\^$.|?*+()[]{}-#& ~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

Regex::Regex(std::string_view pattern, const std::string& where) : pattern_(pattern), code_(std::make_unique<Code>()) {
  std::string translated = translate_oniguruma(pattern);
  int error = 0;
  PCRE2_SIZE offset = 0;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                              PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK, &error, &offset, nullptr);
  if (!code_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    fail(ErrorCode::kParse, where, "regex '{}' does not compile at offset {}: {}", pattern_, offset,
         reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter if unavailable
}

Regex::~Regex() = default;

std::vector<std::pair<std::size_t, std::size_t>> Regex::find_all(std::string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  JitStack& scratch = thread_scratch();
  auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t pos = 0;
  std::uint32_t options = 0;
  while (pos <= text.size()) {
    int rc = pcre2_match(code_->code, subject, text.size(), pos, options | PCRE2_NO_UTF_CHECK, scratch.data,
                         scratch.context);
    if (rc == PCRE2_ERROR_NOMATCH) {
      if (options == 0) break;
      // An empty match was found at pos: move one character on and search normally.
      options = 0;
      ++pos;
      while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
      continue;
    }
    if (rc < 0) {
      PCRE2_UCHAR message[256];
      pcre2_get_error_message(rc, message, sizeof message);
      fail(ErrorCode::kRuntime, "regex", "matching '{}' failed: {}", pattern_, reinterpret_cast<const char*>(message));
    }
    PCRE2_SIZE* ov = pcre2_get_ovector_pointer(scratch.data);
    matches.emplace_back(ov[0], ov[1]);
    pos = ov[1];
    options = ov[0] == ov[1] ? (PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED) : 0;
    if (pos == text.size() && options == 0) break;
  }
  return matches;
}

}  // namespace ogai::tokenizer
