#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/regex.h"

#include <pcre2.h>

#include <unicode/uchar.h>


#include "base/error.h"
#include "tokenizer/cancel.h"
#include "tokenizer/unicode16.h"

namespace ogai::tokenizer {
namespace {

// Oniguruma's \s (Unicode White_Space) as class members.
constexpr std::string_view kSpaceMembers =
    "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";
// Oniguruma's \w as Hugging Face's build behaves (measured against it): Alphabetic | Mark |
// Decimal_Number | Connector_Punctuation; outside a character class it also matches the
// Latin-1 digits and fractions U+00B2, U+00B3, U+00B9 and U+00BC-U+00BE.
constexpr std::string_view kWordMembers = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}";
const std::string& extra_members(std::string_view property);
constexpr std::string_view kLatin1Numbers = "\\x{B2}\\x{B3}\\x{B9}\\x{BC}-\\x{BE}";

// PCRE2 10.42 knows Unicode 14.0; Hugging Face's Oniguruma knows 16.0. These are the class
// members to add to \\p{L}, \\p{N}, \\p{Nd} and \\p{M} for the characters assigned in 15.0 and 16.0
// (computed once per process, on first use).
struct NewerMembers {
  std::string letters, numbers, digits, marks;
  NewerMembers() {
    struct Acc {
      std::string* out;
      char32_t first = 0, last = 0;
      bool open = false;
      void add(char32_t c) {
        if (open && last + 1 == c) {
          last = c;
          return;
        }
        flush();
        first = last = c, open = true;
      }
      void flush() {
        if (!open) return;
        char buf[48];
        std::snprintf(buf, sizeof buf, first == last ? "\\x{%X}" : "\\x{%X}-\\x{%X}", static_cast<unsigned>(first),
                      static_cast<unsigned>(last));
        *out += buf;
        open = false;
      }
    } l{&letters}, n{&numbers}, d{&digits}, m{&marks};
    for (char32_t c = 0x370; c <= 0x10FFFF; ++c) {
      std::uint32_t mask = U_GET_GC_MASK(static_cast<UChar32>(c));
      bool recent = false;
      if (mask & (U_GC_L_MASK | U_GC_N_MASK | U_GC_M_MASK)) {
        UVersionInfo v;
        u_charAge(static_cast<UChar32>(c), v);
        recent = v[0] >= 15;
      }
      if ((recent && (mask & U_GC_L_MASK)) || is_onig_letter_new(c)) l.add(c);
      if ((recent && (mask & U_GC_N_MASK)) || is_onig_number_new(c)) n.add(c);
      if ((recent && (mask & U_GC_ND_MASK)) || is_onig_number_new(c)) d.add(c);
      if ((recent && (mask & U_GC_M_MASK)) || is_onig_mark_new(c)) m.add(c);
    }
    l.flush(), n.flush(), d.flush(), m.flush();
  }
};

const std::string& extra_members(std::string_view property) {
  static const NewerMembers members;
  static const std::string none;
  if (property == "L") return members.letters;
  if (property == "N") return members.numbers;
  if (property == "Nd") return members.digits;
  if (property == "M") return members.marks;
  return none;
}

std::string word_members() {
  return std::string(kWordMembers) + extra_members("L") + extra_members("M") + extra_members("Nd");
}

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
      if ((e == 'p' || e == 'P') && i + 1 < p.size() && p[i + 1] == '{') {
        std::size_t close = p.find('}', i + 1);
        if (close != std::string_view::npos) {
          std::string_view name = p.substr(i + 2, close - i - 2);
          std::string prop = std::string("\\") + e + "{" + std::string(name) + "}";
          bool extend = (name == "L" || name == "N" || name == "Nd" || name == "M") && (e == 'p' || !in_class);
          i = close;
          if (!extend) out += prop;
          else if (in_class) out += prop + extra_members(name);
          else out += std::string(e == 'p' ? "[" : "[^") + "\\p{" + std::string(name) + "}" + extra_members(name) + "]";
          continue;
        }
      }
      if (e == 's') out += in_class ? std::string(kSpaceMembers) : "[" + std::string(kSpaceMembers) + "]";
      else if (e == 'S' && !in_class) out += "[^" + std::string(kSpaceMembers) + "]";
      else if (e == 'w') out += in_class ? word_members() : "[" + word_members() + std::string(kLatin1Numbers) + "]";
      else if (e == 'W' && !in_class) out += "[^" + word_members() + std::string(kLatin1Numbers) + "]";
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
    check_cancelled();  // a long text's matches stop when its client left (cancel.h)
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
