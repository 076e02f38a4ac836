#include "chat/jinja/lexer.h"

#include <array>
#include <utility>

#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

constexpr std::array<std::pair<std::string_view, Tok>, 29> kSymbols{{
    {"{%", Tok::kOpenStmt}, {"%}", Tok::kCloseStmt}, {"{{", Tok::kOpenExpr}, {"}}", Tok::kCloseExpr},
    {"(", Tok::kLParen}, {")", Tok::kRParen}, {"{", Tok::kLBrace}, {"}", Tok::kRBrace},
    {"[", Tok::kLBracket}, {"]", Tok::kRBracket}, {",", Tok::kComma}, {".", Tok::kDot},
    {":", Tok::kColon}, {"|", Tok::kPipe}, {"<=", Tok::kComparison}, {">=", Tok::kComparison},
    {"==", Tok::kComparison}, {"!=", Tok::kComparison}, {"<", Tok::kComparison}, {">", Tok::kComparison},
    {"+", Tok::kAdditive}, {"-", Tok::kAdditive}, {"~", Tok::kAdditive}, {"**", Tok::kPower},
    {"*", Tok::kMultiplicative}, {"//", Tok::kMultiplicative}, {"/", Tok::kMultiplicative},
    {"%", Tok::kMultiplicative}, {"=", Tok::kEquals},
}};

class Lexer {
 public:
  explicit Lexer(const Preprocessed& s) : src_(s.text), map_(s.origin) {}

  std::vector<Token> run() {
    while (cur_ < src_.size()) step();
    tokens_.push_back({Tok::kEnd, "", pos(src_.size())});
    return std::move(tokens_);
  }

 private:
  std::uint32_t pos(std::size_t i) const { return map_[std::min(i, src_.size())]; }
  bool at(std::string_view s) const { return src_.compare(cur_, s.size(), s) == 0; }
  char peek(std::size_t ahead = 0) const { return cur_ + ahead < src_.size() ? src_[cur_ + ahead] : '\0'; }
  [[noreturn]] void fail(std::string message) const { throw SyntaxError{pos(cur_), std::move(message)}; }
  void push(Tok t, std::string text, std::size_t start) { tokens_.push_back({t, std::move(text), pos(start)}); }
  Tok last() const { return tokens_.empty() ? Tok::kEnd : tokens_.back().type; }

  void strip_trailing_text() {
    if (last() != Tok::kText) return;
    std::string& t = tokens_.back().text;
    t.resize(js_trim(t, false, true).size());
    if (t.empty()) tokens_.pop_back();
  }
  void skip_space() { cur_ += js_space_run_after(src_, cur_); }

  void step() {
    if (!in_tag_ && lex_text()) return;
    if (at("{#")) return lex_comment();
    if (at("{%-") || at("{{-")) {
      strip_trailing_text();
      open(at("{%-") ? Tok::kOpenStmt : Tok::kOpenExpr, 3);
      return;
    }
    skip_space();
    if (cur_ >= src_.size()) fail("unexpected end of template inside a tag");
    if (at("-%}") || at("-}}")) {
      close(at("-%}") ? Tok::kCloseStmt : Tok::kCloseExpr, 3);
      skip_space();
      return after_close();
    }
    char c = peek();
    if ((c == '-' || c == '+') && !follows_operand()) return lex_sign(c);
    if (lex_symbol()) return;
    if (c == '\'' || c == '"') return lex_string(c);
    if (is_ascii_digit(c)) return lex_number();
    if (is_ascii_word(c)) return lex_name();
    fail(std::string("unexpected character '") + c + "'");
  }

  bool lex_text() {
    std::size_t start = cur_;
    while (cur_ < src_.size() && !(src_[cur_] == '{' && (peek(1) == '%' || peek(1) == '{' || peek(1) == '#'))) ++cur_;
    if (cur_ == start) return false;
    push(Tok::kText, std::string(src_.substr(start, cur_ - start)), start);
    return true;
  }

  void lex_comment() {
    std::size_t start = cur_;
    cur_ += 2;
    bool strip_before = peek() == '-';
    cur_ += strip_before;
    std::size_t body = cur_;
    while (!(peek() == '#' && peek(1) == '}')) {
      if (cur_ + 2 >= src_.size()) throw SyntaxError{pos(start), "comment is not closed with '#}'"};
      ++cur_;
    }
    bool strip_after = cur_ > body && src_[cur_ - 1] == '-';
    if (strip_before) strip_trailing_text();
    push(Tok::kComment, "", start);
    cur_ += 2;
    if (strip_after) skip_space();
  }

  void open(Tok t, std::size_t width) {
    push(t, t == Tok::kOpenStmt ? "{%" : "{{", cur_);
    if (t == Tok::kOpenExpr) braces_ = 0;
    cur_ += width;
    in_tag_ = true;
  }
  void close(Tok t, std::size_t width) {
    push(t, t == Tok::kCloseStmt ? "%}" : "}}", cur_);
    cur_ += width;
    in_tag_ = false;
  }

  bool follows_operand() const {
    Tok t = last();
    return t == Tok::kName || t == Tok::kNumber || t == Tok::kString || t == Tok::kRParen || t == Tok::kRBracket;
  }

  void lex_sign(char sign) {
    std::size_t start = cur_++;
    std::string num = digits();
    if (!num.empty() && peek() == '.' && is_ascii_digit(peek(1))) {
      ++cur_;
      num += "." + digits();
    }
    push(num.empty() ? Tok::kUnary : Tok::kNumber, sign + num, start);
  }

  std::string digits() {
    std::size_t start = cur_;
    while (is_ascii_digit(peek())) ++cur_;
    if (cur_ >= src_.size()) fail("unexpected end of template inside a number");
    return std::string(src_.substr(start, cur_ - start));
  }

  bool lex_symbol() {
    for (const auto& [text, type] : kSymbols) {
      if (type == Tok::kCloseExpr && braces_ > 0) continue;
      if (!at(text)) continue;
      if (type == Tok::kOpenStmt || type == Tok::kOpenExpr) return open(type, 2), true;
      if (type == Tok::kCloseStmt || type == Tok::kCloseExpr) return close(type, 2), after_close(), true;
      if (type == Tok::kLBrace) ++braces_;
      if (type == Tok::kRBrace) --braces_;
      push(type, std::string(text), cur_);
      cur_ += text.size();
      return true;
    }
    return false;
  }

  void lex_number() {
    std::size_t start = cur_;
    std::string num = digits();
    if (last() != Tok::kDot && peek() == '.' && is_ascii_digit(peek(1))) {
      ++cur_;
      num += "." + digits();
    }
    push(Tok::kNumber, num, start);
  }

  void lex_name() {
    std::size_t start = cur_;
    while (cur_ < src_.size() && is_ascii_word(src_[cur_])) ++cur_;
    if (cur_ >= src_.size()) fail("unexpected end of template inside a tag");
    push(Tok::kName, std::string(src_.substr(start, cur_ - start)), start);
  }

  void lex_string(char quote);
  void after_close();
  bool escape(std::string& out);

  std::string_view src_;
  const std::vector<std::uint32_t>& map_;
  std::vector<Token> tokens_;
  std::size_t cur_ = 0;
  int braces_ = 0;
  bool in_tag_ = false;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes the escape after a backslash at cur_; returns false to keep the backslash literally.
bool Lexer::escape(std::string& out) {
  char e = peek(1);
  static constexpr std::string_view kFrom = "ntrbfva'\"\\", kTo = "\n\t\r\b\f\v\a'\"\\";
  if (auto k = kFrom.find(e); e && k != kFrom.npos) return out += kTo[k], cur_ += 2, true;
  if (e == '\n') return cur_ += 2, true;
  int width = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
  if (width) {
    char32_t cp = 0;
    for (int i = 0; i < width; ++i) {
      int h = hex_value(peek(2 + i));
      if (h < 0) fail(std::string("invalid \\") + e + " escape in a string literal");
      cp = cp * 16 + h;
    }
    append_utf8(out, cp);
    cur_ += 2 + width;
    return true;
  }
  if (e >= '0' && e <= '7') {
    char32_t cp = 0;
    std::size_t n = 0;
    while (n < 3 && peek(1 + n) >= '0' && peek(1 + n) <= '7') cp = cp * 8 + (peek(1 + n++) - '0');
    append_utf8(out, cp);
    cur_ += 1 + n;
    return true;
  }
  return false;
}

void Lexer::lex_string(char quote) {
  std::size_t start = cur_++;
  std::string value;
  while (peek() != quote) {
    if (cur_ >= src_.size()) throw SyntaxError{pos(start), "string literal is not closed"};
    if (peek() == '\\' && escape(value)) continue;
    value += src_[cur_++];
  }
  ++cur_;
  push(Tok::kString, std::move(value), start);
}

// After `%}`: a `{% raw %}` tag just closed turns everything up to `{% endraw %}` into text.
void Lexer::after_close() {
  std::size_t n = tokens_.size();
  if (n < 3 || tokens_[n - 1].type != Tok::kCloseStmt || tokens_[n - 2].type != Tok::kName ||
      tokens_[n - 2].text != "raw" || tokens_[n - 3].type != Tok::kOpenStmt)
    return;
  std::uint32_t open_pos = tokens_[n - 3].pos;
  tokens_.resize(n - 3);
  for (std::size_t p = src_.find("{%", cur_); p != src_.npos; p = src_.find("{%", p + 1)) {
    std::size_t k = p + 2;
    bool strip_before = k < src_.size() && src_[k] == '-';
    k += strip_before;
    k += js_space_run_after(src_, k);
    if (src_.compare(k, 6, "endraw") != 0) continue;
    k += 6;
    k += js_space_run_after(src_, k);
    bool strip_after = k < src_.size() && src_[k] == '-';
    k += strip_after;
    if (src_.compare(k, 2, "%}") != 0) continue;
    std::string_view body = src_.substr(cur_, p - cur_);
    if (strip_before) body = js_trim(body, false, true);
    if (!body.empty()) push(Tok::kText, std::string(body), cur_);
    push(Tok::kComment, "", p);  // ends the text run so the next text is its own token
    cur_ = k + 2;
    if (strip_after) skip_space();
    return;
  }
  throw SyntaxError{open_pos, "'raw' block is not closed with '{% endraw %}'"};
}

}  // namespace

std::vector<Token> tokenize(const Preprocessed& source) { return Lexer(source).run(); }

const char* token_name(Tok type) {
  switch (type) {
    case Tok::kText: return "text";
    case Tok::kNumber: return "number";
    case Tok::kString: return "string";
    case Tok::kName: return "name";
    case Tok::kOpenStmt: return "'{%'";
    case Tok::kCloseStmt: return "'%}'";
    case Tok::kOpenExpr: return "'{{'";
    case Tok::kCloseExpr: return "'}}'";
    case Tok::kComment: return "comment";
    case Tok::kEnd: return "end of template";
    default: return "operator";
  }
}

std::pair<int, int> line_column(std::string_view text, std::uint32_t pos) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
    if (text[i] == '\n') line++, column = 1;
    else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) column++;
  }
  return {line, column};
}

}  // namespace ogai::chat::jinja
