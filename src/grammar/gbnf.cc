#include "grammar/gbnf.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "base/error.h"
#include "grammar/codepoints.h"

namespace ogai::grammar {
namespace {

constexpr int kMaxNesting = 200;
constexpr std::int64_t kMaxRepeat = 100000;

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-'; }

class GbnfParser {
 public:
  GbnfParser(std::string_view text, std::string where) : t_(text), where_(std::move(where)), b_(where_) {}

  Grammar parse() {
    space(true);
    while (at_ < t_.size()) {
      rule_line();
      space(true);
    }
    auto root = ids_.find("root");
    if (root == ids_.end() || !defined_.count("root")) error("the grammar has no 'root' rule");
    for (const auto& [name, id] : ids_)
      if (!defined_.count(name)) error(fmt::format("rule '{}' is used but never defined", name), uses_[name]);
    return b_.finish(root->second);
  }

 private:
  [[noreturn]] void error(const std::string& what, std::size_t at = std::string::npos) const {
    if (at == std::string::npos) at = at_;
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < at && i < t_.size(); ++i) {
      if (t_[i] == '\n') ++line, col = 1;
      else ++col;
    }
    fail(ErrorCode::kInvalidArgument, fmt::format("{}:{}:{}", where_, line, col), "GBNF: {}", what);
  }

  void space(bool newline_ok) {
    while (at_ < t_.size()) {
      const char c = t_[at_];
      if (c == '#') {
        while (at_ < t_.size() && t_[at_] != '\n') ++at_;
      } else if (c == ' ' || c == '\t' || (newline_ok && (c == '\r' || c == '\n'))) {
        ++at_;
      } else {
        break;
      }
    }
  }

  std::string name() {
    const std::size_t start = at_;
    while (at_ < t_.size() && is_word(t_[at_])) ++at_;
    if (at_ == start) error("expected a rule name");
    return std::string(t_.substr(start, at_ - start));
  }

  std::uint32_t id_of(const std::string& n, std::size_t at) {
    auto [it, added] = ids_.try_emplace(n, 0);
    if (added) {
      it->second = b_.add_rule(n);
      uses_[n] = at;
    }
    return it->second;
  }

  void rule_line() {
    const std::size_t start = at_;
    const std::string n = name();
    space(false);
    if (t_.substr(at_, 3) != "::=") error(fmt::format("expected '::=' after rule name '{}'", n));
    at_ += 3;
    space(true);
    if (!defined_.insert(n).second) error(fmt::format("rule '{}' is defined twice", n), start);
    const std::uint32_t id = id_of(n, start);
    for (auto& alt : alternatives(0)) b_.add_alternative(id, std::move(alt));
    if (at_ < t_.size() && t_[at_] == '\r') ++at_;
    if (at_ < t_.size() && t_[at_] != '\n') error(fmt::format("expected the end of the line, got '{}'", t_[at_]));
  }

  std::vector<Sequence> alternatives(int depth) {
    if (depth > kMaxNesting) error(fmt::format("groups nest deeper than {}", kMaxNesting));
    std::vector<Sequence> alts{sequence(depth)};
    while (at_ < t_.size() && t_[at_] == '|') {
      ++at_;
      space(true);
      alts.push_back(sequence(depth));
    }
    return alts;
  }

  Sequence group_ref(std::vector<Sequence> alts) {
    if (alts.size() == 1) return alts[0];
    return {GrammarBuilder::ref(b_.rule(fmt::format("{}-group{}", where_, ++counter_), std::move(alts)))};
  }

  Sequence sequence(int depth) {
    Sequence seq;
    Sequence last;  // the element(s) a postfix operator applies to
    const bool nested = depth > 0;
    while (at_ < t_.size()) {
      const char c = t_[at_];
      Sequence item;
      if (c == '"') {
        ++at_;
        std::string lit;
        while (at_ < t_.size() && t_[at_] != '"') append_utf8(lit, character());
        if (at_ >= t_.size()) error("unterminated string literal");
        ++at_;
        item = b_.literal(lit);
      } else if (c == '[') {
        item = utf8_class(b_, char_class(), fmt::format("{}-class{}", where_, ++counter_));
      } else if (c == '.') {
        ++at_;
        CodepointSet all;
        all.add(0, kMaxCodepoint);
        item = utf8_class(b_, all, "any-char");
      } else if (is_word(c)) {
        const std::size_t start = at_;
        item = {GrammarBuilder::ref(id_of(name(), start))};
      } else if (c == '(') {
        ++at_;
        space(true);
        item = group_ref(alternatives(depth + 1));
        if (at_ >= t_.size() || t_[at_] != ')') error("expected ')'");
        ++at_;
      } else if (c == '*' || c == '+' || c == '?' || c == '{') {
        if (last.empty()) error(fmt::format("'{}' has nothing to repeat", c));
        seq.resize(seq.size() - last.size());
        item = postfix(last);
        last.clear();
        GrammarBuilder::append(seq, item);
        space(nested);
        continue;
      } else if (c == '<' || c == '!') {
        fail(ErrorCode::kUnsupported, where_, "GBNF token references ('<...>', '!') are not supported");
      } else {
        break;
      }
      GrammarBuilder::append(seq, item);
      last = std::move(item);
      space(nested);
    }
    return seq;
  }

  std::int64_t number() {
    std::int64_t n = 0;
    const std::size_t start = at_;
    while (at_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[at_]))) {
      n = n * 10 + (t_[at_++] - '0');
      if (n > kMaxRepeat) error(fmt::format("a repetition count above {}", kMaxRepeat));
    }
    if (at_ == start) error("expected a number");
    return n;
  }

  Sequence postfix(const Sequence& item) {
    const char c = t_[at_++];
    const std::string n = fmt::format("{}-rep{}", where_, ++counter_);
    if (c == '*') return b_.repeat(item, 0, -1, n);
    if (c == '+') return b_.repeat(item, 1, -1, n);
    if (c == '?') return b_.repeat(item, 0, 1, n);
    space(false);
    const std::int64_t lo = number();
    std::int64_t hi = lo;
    space(false);
    if (at_ < t_.size() && t_[at_] == ',') {
      ++at_;
      space(false);
      hi = (at_ < t_.size() && t_[at_] == '}') ? -1 : number();
      space(false);
    }
    if (at_ >= t_.size() || t_[at_] != '}') error("expected '}'");
    ++at_;
    if (hi >= 0 && hi < lo) error(fmt::format("repetition {{{},{}}} has max < min", lo, hi));
    return b_.repeat(item, lo, hi, n);
  }

  std::uint32_t hex(int digits) {
    std::uint32_t v = 0;
    for (int i = 0; i < digits; ++i) {
      if (at_ >= t_.size() || !std::isxdigit(static_cast<unsigned char>(t_[at_]))) error("expected a hex digit");
      const char h = t_[at_++];
      v = v * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    if (v > kMaxCodepoint) error("a code point above U+10FFFF");
    return v;
  }

  // One (possibly escaped) character of a literal or class.
  std::uint32_t character() {
    if (at_ >= t_.size()) error("unexpected end of the grammar");
    const auto c = static_cast<unsigned char>(t_[at_]);
    if (c == '\\') {
      ++at_;
      if (at_ >= t_.size()) error("a trailing backslash");
      const char e = t_[at_++];
      switch (e) {
        case 'x': return hex(2);
        case 'u': return hex(4);
        case 'U': return hex(8);
        case 't': return '\t';
        case 'r': return '\r';
        case 'n': return '\n';
        case '\\': case '"': case '[': case ']': return static_cast<unsigned char>(e);
        default: error(fmt::format("unknown escape '\\{}'", e));
      }
    }
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || at_ + n > t_.size()) error("invalid UTF-8");
    std::uint32_t cp = n == 1 ? c : c & (0x3F >> (n - 1));
    for (int i = 1; i < n; ++i) cp = (cp << 6) | (static_cast<unsigned char>(t_[at_ + i]) & 0x3F);
    at_ += n;
    return cp;
  }

  CodepointSet char_class() {
    ++at_;  // '['
    const bool negate = at_ < t_.size() && t_[at_] == '^';
    if (negate) ++at_;
    CodepointSet set;
    while (at_ < t_.size() && t_[at_] != ']') {
      const std::uint32_t lo = character();
      if (at_ + 1 < t_.size() && t_[at_] == '-' && t_[at_ + 1] != ']') {
        ++at_;
        const std::uint32_t hi = character();
        if (hi < lo) error("a class range out of order");
        set.add(lo, hi);
      } else {
        set.add(lo);
      }
    }
    if (at_ >= t_.size()) error("unterminated character class");
    ++at_;
    if (negate) set = set.complement();
    if (set.empty()) error("a character class that matches nothing");
    return set;
  }

  std::string_view t_;
  std::string where_;
  GrammarBuilder b_;
  std::size_t at_ = 0;
  int counter_ = 0;
  std::map<std::string, std::uint32_t> ids_;
  std::map<std::string, std::size_t> uses_;
  std::set<std::string> defined_;
};

}  // namespace

Grammar compile_gbnf(std::string_view text, const std::string& where) { return GbnfParser(text, where).parse(); }

}  // namespace ogai::grammar
