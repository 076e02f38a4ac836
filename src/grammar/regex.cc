#include "grammar/regex.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"

namespace ogai::grammar {
namespace {

constexpr int kMaxNesting = 200;
constexpr std::int64_t kMaxRepeat = 100000;

class RegexParser {
 public:
  RegexParser(GrammarBuilder& b, std::string_view pattern, Spelling spelling, std::string where,
              const CodepointSet* without)
      : b_(b), p_(pattern), spelling_(spelling), where_(std::move(where)), without_(without) {}

  Sequence parse(RegexAnchoring anchoring, bool& anchored_start, bool& anchored_end) {
    anchored_start = eat('^');
    Sequence body = alternation(0);
    anchored_end = false;
    if (at_ < p_.size()) error("unexpected ')'");
    (void)anchoring;
    anchored_end = ended_with_dollar_;
    return body;
  }

  static CodepointSet any_but_newline() {
    CodepointSet nl;
    for (std::uint32_t c : {0x0Au, 0x0Du, 0x2028u, 0x2029u}) nl.add(c);
    return nl.complement();
  }
  Sequence spell(const CodepointSet& set) {
    if (!without_) return spell_class(b_, set, spelling_, rule_name("class"));
    CodepointSet kept;  // set minus without_
    const CodepointSet others = without_->complement();
    for (const auto& [a, b] : set.ranges())
      for (const auto& [c, d] : others.ranges())
        if (std::max(a, c) <= std::min(b, d)) kept.add(std::max(a, c), std::min(b, d));
    if (kept.empty()) return {b_.bytes(ByteSet{})};  // matches nothing
    return spell_class(b_, kept, spelling_, rule_name("class"));
  }

 private:
  [[noreturn]] void error(const std::string& what) const {
    fail(ErrorCode::kInvalidArgument, where_, "regex /{}/ at offset {}: {}", std::string(p_), at_, what);
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    fail(ErrorCode::kUnsupported, where_, "regex /{}/ at offset {}: {} is not supported", std::string(p_), at_, what);
  }
  std::string rule_name(const char* kind) { return fmt::format("{}-re{}-{}", where_, ++counter_, kind); }

  bool eat(char c) {
    if (at_ < p_.size() && p_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool peek(char c) const { return at_ < p_.size() && p_[at_] == c; }

  std::uint32_t next_codepoint() {
    const auto c = static_cast<unsigned char>(p_[at_]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || at_ + n > p_.size()) error("invalid UTF-8");
    std::uint32_t cp = n == 1 ? c : c & (0x3F >> (n - 1));
    for (int i = 1; i < n; ++i) {
      const auto cc = static_cast<unsigned char>(p_[at_ + i]);
      if ((cc & 0xC0) != 0x80) error("invalid UTF-8");
      cp = (cp << 6) | (cc & 0x3F);
    }
    at_ += n;
    return cp;
  }

  Sequence alternation(int depth) {
    if (depth > kMaxNesting) error(fmt::format("groups nest deeper than {}", kMaxNesting));
    std::vector<Sequence> alts{concat(depth)};
    while (eat('|')) alts.push_back(concat(depth));
    if (alts.size() == 1) return alts[0];
    return {GrammarBuilder::ref(b_.rule(rule_name("alt"), std::move(alts)))};
  }

  Sequence concat(int depth) {
    Sequence seq;
    while (at_ < p_.size() && !peek('|') && !peek(')')) {
      if (peek('$')) {
        ++at_;
        if (at_ != p_.size() || depth != 0) unsupported("'$' other than at the end of the pattern");
        ended_with_dollar_ = true;
        break;
      }
      if (peek('^')) unsupported("'^' other than at the start of the pattern");
      Sequence atom_seq = atom(depth);
      GrammarBuilder::append(seq, quantified(std::move(atom_seq)));
    }
    return seq;
  }

  std::int64_t number() {
    std::int64_t n = 0;
    bool any = false;
    while (at_ < p_.size() && p_[at_] >= '0' && p_[at_] <= '9') {
      n = n * 10 + (p_[at_++] - '0');
      any = true;
      if (n > kMaxRepeat) error(fmt::format("a repetition count above {}", kMaxRepeat));
    }
    return any ? n : -1;
  }

  Sequence quantified(Sequence atom) {
    for (;;) {
      std::int64_t lo = 0, hi = -1;
      if (eat('*')) {
      } else if (eat('+')) {
        lo = 1;
      } else if (eat('?')) {
        hi = 1;
      } else if (peek('{') && at_ + 1 < p_.size() && p_[at_ + 1] >= '0' && p_[at_ + 1] <= '9') {
        ++at_;
        lo = number();
        hi = lo;
        if (eat(',')) hi = peek('}') ? -1 : number();
        if (!eat('}')) error("expected '}' closing a repetition");
        if (hi >= 0 && hi < lo) error(fmt::format("repetition {{{},{}}} has max < min", lo, hi));
      } else {
        return atom;
      }
      eat('?');  // lazy: same language
      atom = b_.repeat(atom, lo, hi, rule_name("rep"));
    }
  }

  Sequence atom(int depth) {
    const char c = p_[at_];
    if (c == '(') {
      ++at_;
      if (eat('?')) {
        if (eat(':')) {
        } else if (peek('<') && at_ + 1 < p_.size() && p_[at_ + 1] != '=' && p_[at_ + 1] != '!') {
          while (at_ < p_.size() && p_[at_] != '>') ++at_;
          if (!eat('>')) error("unterminated group name");
        } else if (peek('=') || peek('!') || peek('<')) {
          unsupported("lookaround");
        } else {
          unsupported("inline flags or this group syntax");
        }
      }
      Sequence inner = alternation(depth + 1);
      if (!eat(')')) error("missing ')'");
      return inner;
    }
    if (c == '[') return spell(char_class());
    if (c == '.') {
      ++at_;
      return spell(any_but_newline());
    }
    if (c == '\\') return escape_atom();
    if (c == '*' || c == '+' || c == '?') error("nothing to repeat");
    if (c == '{' && at_ + 1 < p_.size() && p_[at_ + 1] >= '0' && p_[at_ + 1] <= '9') error("nothing to repeat");
    CodepointSet one;
    one.add(next_codepoint());
    return spell(one);
  }

  Sequence escape_atom() {
    const std::size_t start = at_;
    ++at_;
    if (at_ >= p_.size()) error("a trailing backslash");
    const char e = p_[at_];
    if (e >= '1' && e <= '9') unsupported("a backreference");
    if (e == 'b' || e == 'B') unsupported("a word boundary");
    if (e == 'k') unsupported("a named backreference");
    at_ = start;
    return spell(class_escape(false));
  }

  static CodepointSet digits() {
    CodepointSet s;
    s.add('0', '9');
    return s;
  }
  static CodepointSet word() {
    CodepointSet s;
    s.add('a', 'z');
    s.add('A', 'Z');
    s.add('0', '9');
    s.add('_');
    return s;
  }
  static CodepointSet space() {
    CodepointSet s;
    for (std::uint32_t c : {0x09u, 0x0Au, 0x0Bu, 0x0Cu, 0x0Du, 0x20u, 0xA0u, 0x1680u, 0x2028u, 0x2029u, 0x202Fu,
                            0x205Fu, 0x3000u, 0xFEFFu})
      s.add(c);
    s.add(0x2000, 0x200A);
    return s;
  }

  std::uint32_t hex(int digits) {
    std::uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      if (at_ >= p_.size() || !std::isxdigit(static_cast<unsigned char>(p_[at_]))) error("expected a hex digit");
      const char h = p_[at_++];
      v = v * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    return v;
  }

  // An escape at p_[at_] == '\\' as a set of code points. In a class, \b is backspace.
  CodepointSet class_escape(bool in_class) {
    ++at_;
    if (at_ >= p_.size()) error("a trailing backslash");
    const char e = p_[at_++];
    CodepointSet s;
    switch (e) {
      case 'd':
        return digits();
      case 'D':
        return digits().complement();
      case 'w':
        return word();
      case 'W':
        return word().complement();
      case 's':
        return space();
      case 'S':
        return space().complement();
      case 't':
        s.add('\t');
        return s;
      case 'n':
        s.add('\n');
        return s;
      case 'r':
        s.add('\r');
        return s;
      case 'f':
        s.add('\f');
        return s;
      case 'v':
        s.add('\v');
        return s;
      case '0':
        s.add(0);
        return s;
      case 'x':
        s.add(hex(2));
        return s;
      case 'u':
        if (eat('{')) {
          std::uint32_t v = 0;
          int n = 0;
          while (at_ < p_.size() && p_[at_] != '}' && n < 7) v = v * 16 + hex(1), ++n;
          if (!eat('}') || n == 0 || v > kMaxCodepoint) error("a bad \\u{...} escape");
          s.add(v);
        } else {
          s.add(hex(4));
        }
        return s;
      case 'b':
        if (in_class) {
          s.add('\b');
          return s;
        }
        unsupported("a word boundary");
      case 'p':
      case 'P':
        unsupported("a Unicode property escape");
      case 'c':
        unsupported("a control escape \\c");
      default:
        if (std::isalnum(static_cast<unsigned char>(e))) unsupported(fmt::format("the escape \\{}", e));
        --at_;
        s.add(next_codepoint());
        return s;
    }
  }

  CodepointSet char_class() {
    ++at_;  // '['
    const bool negate = eat('^');
    CodepointSet set;
    while (at_ < p_.size() && p_[at_] != ']') {
      CodepointSet lo_set = class_atom();
      if (peek('-') && at_ + 1 < p_.size() && p_[at_ + 1] != ']') {
        ++at_;
        CodepointSet hi_set = class_atom();
        if (lo_set.ranges().size() != 1 || hi_set.ranges().size() != 1 ||
            lo_set.ranges()[0].first != lo_set.ranges()[0].second ||
            hi_set.ranges()[0].first != hi_set.ranges()[0].second)
          error("a class range between non-characters");
        const std::uint32_t lo = lo_set.ranges()[0].first, hi = hi_set.ranges()[0].first;
        if (lo > hi) error("a class range out of order");
        set.add(lo, hi);
      } else {
        set.add(lo_set);
      }
    }
    if (!eat(']')) error("missing ']'");
    if (negate) set = set.complement();
    if (set.empty()) error("a class that matches nothing ([])");
    return set;
  }

  CodepointSet class_atom() {
    if (peek('\\')) return class_escape(true);
    CodepointSet s;
    s.add(next_codepoint());
    return s;
  }

  GrammarBuilder& b_;
  std::string_view p_;
  Spelling spelling_;
  std::string where_;
  std::size_t at_ = 0;
  int counter_ = 0;
  bool ended_with_dollar_ = false;
  const CodepointSet* without_ = nullptr;
};

}  // namespace

Sequence compile_regex(GrammarBuilder& builder, std::string_view pattern, Spelling spelling, RegexAnchoring anchoring,
                       const std::string& where, const CodepointSet* without) {
  RegexParser parser(builder, pattern, spelling, where, without);
  bool start = false, end = false;
  Sequence body = parser.parse(anchoring, start, end);
  if (anchoring == RegexAnchoring::kFullMatch) return body;
  // Search semantics: an unanchored side admits any text (any character, newlines included).
  CodepointSet all;
  all.add(0, kMaxCodepoint);
  Sequence out;
  if (!start) GrammarBuilder::append(out, builder.repeat(parser.spell(all), 0, -1, where + "-prefix"));
  GrammarBuilder::append(out, body);
  if (!end) GrammarBuilder::append(out, builder.repeat(parser.spell(all), 0, -1, where + "-suffix"));
  return out;
}

}  // namespace ogai::grammar
