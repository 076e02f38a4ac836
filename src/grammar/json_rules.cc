#include "grammar/json_rules.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "base/error.h"
#include "grammar/char_spelling.h"
#include "grammar/codepoints.h"
#include "grammar/regex.h"

namespace ogai::grammar {
namespace {

ByteSet digit_set(char lo, char hi) {
  return ByteSet::range(static_cast<std::uint8_t>(lo), static_cast<std::uint8_t>(hi));
}

enum class Frac { kNone, kAny, kZero, kNonzero };

Frac intersect(Frac a, Frac b) {
  if (a == Frac::kNone || b == Frac::kNone) return Frac::kNone;
  if (a == Frac::kAny) return b;
  if (b == Frac::kAny) return a;
  return a == b ? a : Frac::kNone;
}

// The formats, as regexes over the string content (they need no escapes). Each is a subset of
// what its RFC allows (conservative forms a model writes; never an invalid text).
std::string ipv4_regex() {
  const std::string octet = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
  return octet + "(\\." + octet + "){3}";
}

std::string ipv6_regex() {  // RFC 3986 IPv6address, no zone
  const std::string h = "[0-9A-Fa-f]{1,4}";
  const std::string ls32 = "(" + h + ":" + h + "|" + ipv4_regex() + ")";
  auto before = [&](int n) {  // [ *n( h16 ":" ) h16 ]
    return n < 0 ? std::string() : "((" + h + ":){0," + std::to_string(n) + "}" + h + ")?";
  };
  std::string out = "(" + h + ":){6}" + ls32;
  out += "|::(" + h + ":){5}" + ls32;
  out += "|" + before(0) + "::(" + h + ":){4}" + ls32;
  out += "|" + before(1) + "::(" + h + ":){3}" + ls32;
  out += "|" + before(2) + "::(" + h + ":){2}" + ls32;
  out += "|" + before(3) + "::" + h + ":" + ls32;
  out += "|" + before(4) + "::" + ls32;
  out += "|" + before(5) + "::" + h;
  out += "|" + before(6) + "::";
  return "(" + out + ")";
}

// Labels of letters and digits joined by single hyphens, starting with a letter, at most 62
// characters; at most 4 labels (so at most 251 characters, within RFC 1123's 253; no "--", so no
// IDNA A-label either).
std::string hostname_regex() {
  const std::string label = "[A-Za-z][A-Za-z0-9]{0,19}(-[A-Za-z0-9]{1,20}){0,2}";
  return label + "(\\." + label + "){0,3}";
}

std::string uri_parts(bool absolute) {
  const std::string pchar = "([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
  const std::string nc = "([A-Za-z0-9._~!$&'()*+,;=@-]|%[0-9A-Fa-f]{2})";  // no ':'
  const std::string host = "(" + hostname_regex() + "|" + ipv4_regex() + "|\\[" + ipv6_regex() + "\\])";
  const std::string authority = "//" + host + "(:[0-9]{1,5})?(/" + pchar + "*)*";
  const std::string tail = "(\\?(" + pchar + "|[/?])*)?(#(" + pchar + "|[/?])*)?";
  if (absolute) return "[A-Za-z][A-Za-z0-9+.-]{0,15}:(" + authority + "|/?" + pchar + "+(/" + pchar + "*)*)?" + tail;
  return "(" + authority + "|/(" + pchar + "+(/" + pchar + "*)*)?|" + nc + "+(/" + pchar + "*)*)?" + tail;
}

std::string duration_regex() {  // RFC 3339 appendix A
  const std::string n = "[0-9]{1,9}";
  const std::string time = "T(" + n + "H(" + n + "M)?(" + n + "S)?|" + n + "M(" + n + "S)?|" + n + "S)";
  const std::string date = "(" + n + "Y(" + n + "M)?(" + n + "D)?|" + n + "M(" + n + "D)?|" + n + "D)";
  return "P(" + date + "(" + time + ")?|" + time + "|" + n + "W)";
}

std::optional<std::string> format_regex(const std::string& format) {
  static const std::string kDate =
      "[0-9]{4}-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8])"
      ")";
  static const std::string kTime =
      "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
  if (format == "date") return kDate;
  if (format == "time") return kTime;
  if (format == "date-time") return kDate + "T" + kTime;
  if (format == "duration") return duration_regex();
  if (format == "uuid") return "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
  if (format == "email" || format == "idn-email")
    return "[A-Za-z0-9]+([._+-][A-Za-z0-9]+)*@[A-Za-z0-9]+(-[A-Za-z0-9]+)*(\\.[A-Za-z0-9]+(-[A-Za-z0-9]+)*)*\\.[A-Za-z]"
           "{2,24}";
  if (format == "hostname" || format == "idn-hostname") return hostname_regex();
  if (format == "ipv4") return ipv4_regex();
  if (format == "ipv6") return ipv6_regex();
  if (format == "uri" || format == "iri") return uri_parts(true);
  if (format == "uri-reference" || format == "iri-reference")
    return "(" + uri_parts(true) + "|" + uri_parts(false) + ")";
  return std::nullopt;
}

std::uint64_t pow10(std::size_t n) {
  std::uint64_t v = 1;
  for (std::size_t i = 0; i < n; ++i) v *= 10;
  return v;
}

}  // namespace

Element JsonRules::cached(std::optional<std::uint32_t>& slot, const char* name,
                          std::vector<Sequence> (JsonRules::*make)()) {
  if (!slot) {
    slot = b_.add_rule(name);
    for (auto& alt : (this->*make)()) b_.add_alternative(*slot, std::move(alt));
  }
  return GrammarBuilder::ref(*slot);
}

bool is_bare_key(const std::string& name) {
  if (name.empty()) return false;
  for (unsigned char c : name)
    if (!(std::isalnum(c) || c == '_' || c == '$' || c == '-' || c == '+' || c == '.' || c >= 0x80)) return false;
  return true;
}

JsonRules::JsonRules(GrammarBuilder& builder, int whitespace, JsonDialect dialect)
    : b_(builder),
      whitespace_(whitespace == kIndentedWhitespace ? whitespace : std::clamp(whitespace, 0, kMaxWhitespace)),
      dialect_(std::move(dialect)) {
  if (dialect_.raw_strings()) {
    const std::string& close = dialect_.string_close;
    if (dialect_.string_open.empty() || close.empty())
      fail(ErrorCode::kInvalidArgument, b_.where(), "a string dialect needs non-empty delimiters");
    for (unsigned char c : close)
      if (c >= 0x80)
        fail(ErrorCode::kUnsupported, b_.where(), "a string close delimiter that is not ASCII ('{}')", close);
  }
}

std::optional<std::string> JsonRules::string_literal(const std::string& text) const {
  if (!dialect_.raw_strings()) {
    std::string out = "\"";
    for (unsigned char c : text) {
      if (c < 0x20 || c == '"' || c == '\\')
        out += json_escape_of(c);
      else
        out += static_cast<char>(c);
    }
    return out + "\"";
  }
  // The reader ends the string at the first close delimiter after the open one.
  if ((text + dialect_.string_close).find(dialect_.string_close) != text.size()) return std::nullopt;
  return dialect_.string_open + text + dialect_.string_close;
}

std::optional<std::string> JsonRules::key_literal(const std::string& name) const {
  if (dialect_.bare_keys && is_bare_key(name)) return name;
  return string_literal(name);
}

CodepointSet JsonRules::raw_excluded() const {
  CodepointSet out;
  out.add(static_cast<unsigned char>(dialect_.string_close[0]));
  return out;
}

Sequence JsonRules::string_with_regex(const std::string& pattern, bool search, const std::string& where) {
  const RegexAnchoring anchoring = search ? RegexAnchoring::kSearch : RegexAnchoring::kFullMatch;
  if (!dialect_.raw_strings()) {
    Sequence s = b_.literal("\"");
    GrammarBuilder::append(s, compile_regex(b_, pattern, Spelling::kJsonString, anchoring, where));
    GrammarBuilder::append(s, b_.literal("\""));
    return s;
  }
  const CodepointSet without = raw_excluded();
  Sequence s = b_.literal(dialect_.string_open);
  GrammarBuilder::append(s, compile_regex(b_, pattern, Spelling::kUtf8, anchoring, where, &without));
  GrammarBuilder::append(s, b_.literal(dialect_.string_close));
  return s;
}

Element JsonRules::ws() {
  if (!ws_ && whitespace_ == kIndentedWhitespace) {
    ByteSet indent;
    indent.add(' ');
    indent.add('\t');
    Sequence newline = b_.literal("\n");
    GrammarBuilder::append(newline, b_.repeat({b_.bytes(indent)}, 0, kMaxIndent, "indent"));
    ws_ = b_.rule("ws", {{}, b_.literal(" "), newline});
  }
  if (!ws_) {
    ByteSet blank;
    for (char c : std::string(" \t\n\r")) blank.add(static_cast<std::uint8_t>(c));
    ws_ = b_.rule("ws", {whitespace_ == 0 ? Sequence{} : b_.repeat({b_.bytes(blank)}, 0, whitespace_, "blanks")});
  }
  return GrammarBuilder::ref(*ws_);
}

Element JsonRules::value() { return cached(value_, "value", &JsonRules::make_value); }
Element JsonRules::object() { return cached(object_, "object", &JsonRules::make_object); }
Element JsonRules::array() { return cached(array_, "array", &JsonRules::make_array); }
Element JsonRules::string() { return cached(string_, "string", &JsonRules::make_string); }
Element JsonRules::number() { return cached(number_, "number", &JsonRules::make_number); }
Element JsonRules::integer() { return cached(integer_, "integer", &JsonRules::make_integer); }
Element JsonRules::string_char() { return cached(char_, "char", &JsonRules::make_char); }

Element JsonRules::boolean() {
  if (!bool_) bool_ = b_.rule("boolean", {b_.literal("true"), b_.literal("false")});
  return GrammarBuilder::ref(*bool_);
}

Element JsonRules::null() {
  if (!null_) null_ = b_.rule("null", {b_.literal("null")});
  return GrammarBuilder::ref(*null_);
}

std::vector<Sequence> JsonRules::make_value() {
  return {{object()}, {array()}, {string()}, {number()}, {boolean()}, {null()}};
}

std::vector<Sequence> JsonRules::make_object() {
  Element key = string();
  if (dialect_.bare_keys) {  // any key: a bare name or, in raw-string dialects, a string
    ByteSet first, rest;
    first.add_range('a', 'z');
    first.add_range('A', 'Z');
    first.add('_');
    rest = first;
    rest.add_range('0', '9');
    Sequence bare = {b_.bytes(first)};
    GrammarBuilder::append(bare, b_.repeat({b_.bytes(rest)}, 0, -1, "bare-key-rest"));
    key = GrammarBuilder::ref(b_.rule("key", {bare, {string()}}));
  }
  Sequence member = {key, ws(), b_.bytes(ByteSet::of(':')), ws(), value(), ws()};
  const std::uint32_t member_rule = b_.rule("member", {member});
  Sequence more = b_.literal(",");
  more.push_back(ws());
  more.push_back(GrammarBuilder::ref(member_rule));
  Sequence filled = {GrammarBuilder::ref(member_rule)};
  GrammarBuilder::append(filled, b_.repeat(more, 0, -1, "members"));
  filled.push_back(b_.bytes(ByteSet::of('}')));
  const std::uint32_t body = b_.rule("object-body", {b_.literal("}"), filled});
  return {{b_.bytes(ByteSet::of('{')), ws(), GrammarBuilder::ref(body)}};
}

std::vector<Sequence> JsonRules::make_array() {
  const std::uint32_t item = b_.rule("element", {{value(), ws()}});
  Sequence more = b_.literal(",");
  more.push_back(ws());
  more.push_back(GrammarBuilder::ref(item));
  Sequence filled = {GrammarBuilder::ref(item)};
  GrammarBuilder::append(filled, b_.repeat(more, 0, -1, "elements"));
  filled.push_back(b_.bytes(ByteSet::of(']')));
  const std::uint32_t body = b_.rule("array-body", {b_.literal("]"), filled});
  return {{b_.bytes(ByteSet::of('[')), ws(), GrammarBuilder::ref(body)}};
}

std::vector<Sequence> JsonRules::make_string() {
  if (dialect_.raw_strings()) return make_raw_string();
  return {string_with_length(0, -1)};
}

// Any text without the close delimiter, as its KMP automaton: rule k holds the text after the
// longest suffix read so far that is a prefix of the delimiter (k bytes of it). Characters are
// tab, newline, carriage return and U+0020 and above (UTF-8); the close is allowed from state k
// only when its first occurrence in text + close is then at the end.
std::vector<Sequence> JsonRules::make_raw_string() {
  const std::string& close = dialect_.string_close;
  const std::size_t m = close.size();
  auto step = [&](std::size_t k, unsigned char c) {  // KMP transition by brute force (m is small)
    std::string seen = close.substr(0, k) + static_cast<char>(c);
    for (std::size_t len = std::min(seen.size(), m); len > 0; --len)
      if (seen.compare(seen.size() - len, len, close, 0, len) == 0) return len;
    return std::size_t{0};
  };
  std::vector<std::uint32_t> state;
  for (std::size_t k = 0; k < m; ++k) state.push_back(b_.add_rule("raw-string-" + std::to_string(k)));
  CodepointSet wide;  // non-ASCII characters never touch an ASCII delimiter: back to state 0
  wide.add(0x80, kMaxCodepoint);
  const Sequence non_ascii = utf8_class(b_, wide, "raw-wide-char");
  for (std::size_t k = 0; k < m; ++k) {
    std::size_t at = k;
    bool early = false;  // the close would first occur before its end
    for (std::size_t i = 0; i + 1 < m && !early; ++i)
      early = (at = step(at, static_cast<unsigned char>(close[i]))) == m;
    if (!early) b_.add_alternative(state[k], b_.literal(close));
    std::map<std::size_t, ByteSet> to;
    for (unsigned c = 0; c < 0x80; ++c) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') continue;
      const std::size_t next = step(k, static_cast<unsigned char>(c));
      if (next < m) to[next].add(static_cast<std::uint8_t>(c));
    }
    for (const auto& [next, bytes] : to)
      b_.add_alternative(state[k], {b_.bytes(bytes), GrammarBuilder::ref(state[next])});
    Sequence wide_alt = non_ascii;
    wide_alt.push_back(GrammarBuilder::ref(state[0]));
    b_.add_alternative(state[k], std::move(wide_alt));
  }
  Sequence s = b_.literal(dialect_.string_open);
  s.push_back(GrammarBuilder::ref(state[0]));
  return {s};
}

std::vector<Sequence> JsonRules::make_raw_char() {
  CodepointSet chars;
  chars.add('\t');
  chars.add('\n');
  chars.add('\r');
  chars.add(0x20, kMaxCodepoint);
  CodepointSet kept;
  const CodepointSet others = raw_excluded().complement();
  for (const auto& [a, b] : chars.ranges())
    for (const auto& [c, d] : others.ranges())
      if (std::max(a, c) <= std::min(b, d)) kept.add(std::max(a, c), std::min(b, d));
  return {utf8_class(b_, kept, "raw-char")};
}

std::vector<Sequence> JsonRules::make_char() {
  CodepointSet plain;
  plain.add(0x20, kMaxCodepoint);
  CodepointSet excluded;
  excluded.add('"');
  excluded.add('\\');
  CodepointSet keep;
  const CodepointSet others = excluded.complement();
  for (const auto& [a, b] : others.ranges())
    if (std::max(a, 0x20u) <= b) keep.add(std::max(a, 0x20u), b);
  ByteSet simple_escape;
  for (char c : std::string("\"\\/bfnrt")) simple_escape.add(static_cast<std::uint8_t>(c));
  ByteSet hex = digit_set('0', '9');
  hex.add_range('a', 'f');
  hex.add_range('A', 'F');
  ByteSet hex_low = digit_set('0', '9');  // first digit other than d/D: no surrogate
  hex_low.add_range('a', 'c');
  hex_low.add_range('A', 'C');
  hex_low.add_range('e', 'f');
  hex_low.add_range('E', 'F');
  ByteSet d = ByteSet::of('d');
  d.add('D');
  const Element h = b_.bytes(hex);
  const std::uint32_t unicode =
      b_.rule("unicode-escape", {{b_.bytes(hex_low), h, h, h}, {b_.bytes(d), b_.bytes(digit_set('0', '7')), h, h}});
  const std::uint32_t escape =
      b_.rule("escape", {{b_.bytes(simple_escape)}, {b_.bytes(ByteSet::of('u')), GrammarBuilder::ref(unicode)}});
  Sequence escaped = {b_.bytes(ByteSet::of('\\')), GrammarBuilder::ref(escape)};
  return {utf8_class(b_, keep, "plain-char"), escaped};
}

Sequence JsonRules::string_with_length(std::int64_t min, std::int64_t max) {
  if (dialect_.raw_strings()) {
    Sequence s = b_.literal(dialect_.string_open);
    GrammarBuilder::append(s, b_.repeat({cached(raw_char_, "raw-char", &JsonRules::make_raw_char)}, min, max, "chars"));
    GrammarBuilder::append(s, b_.literal(dialect_.string_close));
    return s;
  }
  Sequence s = {b_.bytes(ByteSet::of('"'))};
  GrammarBuilder::append(s, b_.repeat({string_char()}, min, max, "chars"));
  s.push_back(b_.bytes(ByteSet::of('"')));
  return s;
}

std::optional<Sequence> JsonRules::string_with_format(const std::string& format, const std::string& where) {
  const auto re = format_regex(format);
  if (!re) return std::nullopt;
  return string_with_regex(*re, /*search=*/false, where + "-" + format);
}

Sequence JsonRules::digits(int min, int max) { return b_.repeat({b_.bytes(digit_set('0', '9'))}, min, max, "digits"); }

std::vector<Sequence> JsonRules::make_number() {
  Sequence int_part = {GrammarBuilder::ref(b_.rule("int-part", {b_.literal("0"), [&] {
                                                                  Sequence s = {b_.bytes(digit_set('1', '9'))};
                                                                  GrammarBuilder::append(s, digits(0, -1));
                                                                  return s;
                                                                }()}))};
  Sequence frac = b_.literal(".");
  GrammarBuilder::append(frac, digits(1, -1));
  ByteSet e = ByteSet::of('e');
  e.add('E');
  ByteSet sign = ByteSet::of('+');
  sign.add('-');
  Sequence exp = {b_.bytes(e)};
  GrammarBuilder::append(exp, b_.optional({b_.bytes(sign)}, "exp-sign"));
  GrammarBuilder::append(exp, digits(1, -1));
  Sequence n = b_.optional(b_.literal("-"), "minus");
  GrammarBuilder::append(n, int_part);
  GrammarBuilder::append(n, b_.optional(frac, "frac"));
  GrammarBuilder::append(n, b_.optional(exp, "exp"));
  return {n};
}

std::vector<Sequence> JsonRules::make_integer() {
  Sequence n = b_.optional(b_.literal("-"), "minus");
  Sequence nonzero = {b_.bytes(digit_set('1', '9'))};
  GrammarBuilder::append(nonzero, digits(0, -1));
  n.push_back(GrammarBuilder::ref(b_.rule("uint", {b_.literal("0"), nonzero})));
  return {n};
}

void JsonRules::same_length_range(const std::string& lo, const std::string& hi, Sequence prefix,
                                  std::vector<Sequence>& out) {
  if (lo.empty()) {
    out.push_back(std::move(prefix));
    return;
  }
  const std::size_t rest = lo.size() - 1;
  auto with = [&](ByteSet first) {
    Sequence s = prefix;
    s.push_back(b_.bytes(first));
    return s;
  };
  if (lo[0] == hi[0]) {
    same_length_range(lo.substr(1), hi.substr(1), with(ByteSet::of(static_cast<std::uint8_t>(lo[0]))), out);
    return;
  }
  const bool lo_zeros = lo.find_first_not_of('0', 1) == std::string::npos;
  const bool hi_nines = hi.find_first_not_of('9', 1) == std::string::npos;
  char full_from = lo[0], full_to = hi[0];
  if (!lo_zeros) {
    same_length_range(lo.substr(1), std::string(rest, '9'), with(ByteSet::of(static_cast<std::uint8_t>(lo[0]))), out);
    ++full_from;
  }
  if (!hi_nines) {
    same_length_range(std::string(rest, '0'), hi.substr(1), with(ByteSet::of(static_cast<std::uint8_t>(hi[0]))), out);
    --full_to;
  }
  if (full_from <= full_to) {
    Sequence s = with(digit_set(full_from, full_to));
    GrammarBuilder::append(s, digits(static_cast<int>(rest), static_cast<int>(rest)));
    out.push_back(std::move(s));
  }
}

std::vector<Sequence> JsonRules::uint_range(std::uint64_t lo, std::optional<std::uint64_t> hi) {
  std::vector<Sequence> out;
  const std::size_t lo_len = std::to_string(lo).size();
  const std::size_t hi_len = hi ? std::to_string(*hi).size() : lo_len;
  for (std::size_t len = lo_len; len <= hi_len; ++len) {
    const std::uint64_t a = len == lo_len ? lo : pow10(len - 1);
    const std::uint64_t b = (hi && len == hi_len) ? *hi : (len >= 20 ? UINT64_MAX : pow10(len) - 1);
    if (a <= b) same_length_range(std::to_string(a), std::to_string(b), {}, out);
  }
  if (!hi) {  // every number with more digits than lo
    Sequence longer = {b_.bytes(digit_set('1', '9'))};
    GrammarBuilder::append(longer, digits(static_cast<int>(lo_len), -1));
    out.push_back(std::move(longer));
  }
  return out;
}

Sequence JsonRules::integer_range(std::optional<std::int64_t> lo, std::optional<std::int64_t> hi,
                                  const std::string& name) {
  std::vector<Sequence> alts;
  if (!hi || *hi >= 0) {
    const std::uint64_t from = lo && *lo > 0 ? static_cast<std::uint64_t>(*lo) : 0;
    std::optional<std::uint64_t> to;
    if (hi) to = static_cast<std::uint64_t>(*hi);
    if (!to || from <= *to)
      for (auto& s : uint_range(from, to)) alts.push_back(std::move(s));
  }
  if (!lo || *lo < 0) {
    // v in [lo, min(hi, -1)] as "-" w, w = -v.
    const std::uint64_t w_from = (hi && *hi < 0) ? static_cast<std::uint64_t>(-(*hi + 1)) + 1 : 1;
    std::optional<std::uint64_t> w_to;
    if (lo) w_to = static_cast<std::uint64_t>(-(*lo + 1)) + 1;
    if (!w_to || w_from <= *w_to)
      for (auto& s : uint_range(w_from, w_to)) {
        Sequence neg = b_.literal("-");
        GrammarBuilder::append(neg, s);
        alts.push_back(std::move(neg));
      }
  }
  if (alts.empty()) return {};
  return {GrammarBuilder::ref(b_.rule(name, std::move(alts)))};
}

std::vector<Sequence> JsonRules::nonneg_number(NumberBound lo, std::optional<NumberBound> hi) {
  if (!frac_) {
    Sequence f = b_.literal(".");
    GrammarBuilder::append(f, digits(1, -1));
    frac_ = b_.rule("any-frac", {f, {}});
    Sequence z = b_.literal(".");
    GrammarBuilder::append(z, b_.repeat(b_.literal("0"), 1, -1, "zeros"));
    zero_frac_ = b_.rule("zero-frac", {z, {}});
    Sequence nz = b_.literal(".");
    GrammarBuilder::append(nz, digits(0, -1));
    nz.push_back(b_.bytes(digit_set('1', '9')));
    GrammarBuilder::append(nz, digits(0, -1));
    nonzero_frac_ = b_.rule("nonzero-frac", {nz});
  }
  auto frac_rule = [&](Frac f) {
    return GrammarBuilder::ref(f == Frac::kAny ? *frac_ : f == Frac::kZero ? *zero_frac_ : *nonzero_frac_);
  };
  auto upper = [&](std::int64_t n) {
    if (!hi || n < hi->value) return Frac::kAny;
    if (n == hi->value) return hi->exclusive ? Frac::kNone : Frac::kZero;
    return Frac::kNone;
  };
  std::vector<Sequence> out;
  auto emit = [&](std::int64_t n, Frac f) {
    if (f == Frac::kNone) return;
    Sequence s = b_.literal(std::to_string(n));
    s.push_back(frac_rule(f));
    out.push_back(std::move(s));
  };
  emit(lo.value, intersect(lo.exclusive ? Frac::kNonzero : Frac::kAny, upper(lo.value)));
  if (hi && hi->value > lo.value) emit(hi->value, upper(hi->value));
  const std::int64_t mid_from = lo.value + 1;
  std::optional<std::int64_t> mid_to;
  if (hi) mid_to = hi->value - 1;
  if (!mid_to || mid_from <= *mid_to) {
    std::optional<std::uint64_t> to;
    if (mid_to) to = static_cast<std::uint64_t>(*mid_to);
    for (auto& s : uint_range(static_cast<std::uint64_t>(mid_from), to)) {
      s.push_back(frac_rule(Frac::kAny));
      out.push_back(std::move(s));
    }
  }
  return out;
}

Sequence JsonRules::number_range(std::optional<NumberBound> lo, std::optional<NumberBound> hi,
                                 const std::string& name) {
  std::vector<Sequence> alts;
  if (!hi || hi->value > 0 || (hi->value == 0 && !hi->exclusive)) {
    NumberBound from{0, false};
    if (lo && lo->value >= 0) from = *lo;
    for (auto& s : nonneg_number(from, hi)) alts.push_back(std::move(s));
  }
  if (!lo || lo->value < 0) {
    NumberBound w_from{0, true};  // v < 0: w = -v > 0
    if (hi && hi->value < 0) w_from = {-hi->value, hi->exclusive};
    std::optional<NumberBound> w_to;
    if (lo) w_to = NumberBound{-lo->value, lo->exclusive};
    for (auto& s : nonneg_number(w_from, w_to)) {
      Sequence neg = b_.literal("-");
      GrammarBuilder::append(neg, s);
      alts.push_back(std::move(neg));
    }
  }
  if (alts.empty()) return {};
  return {GrammarBuilder::ref(b_.rule(name, std::move(alts)))};
}

Sequence JsonRules::multiples(std::uint64_t factor, const std::string& name) {
  // digits[r]: the rest of the digits after a prefix whose value is r modulo factor.
  std::vector<std::uint32_t> rest(factor);
  for (std::uint64_t r = 0; r < factor; ++r) rest[r] = b_.add_rule(name + "-r" + std::to_string(r));
  auto next = [&](std::uint64_t r, char lo, char hi) {  // one alternative per target residue
    std::map<std::uint64_t, ByteSet> by_target;
    for (char d = lo; d <= hi; ++d)
      by_target[(r * 10 + static_cast<std::uint64_t>(d - '0')) % factor].add(static_cast<std::uint8_t>(d));
    std::vector<Sequence> alts;
    for (const auto& [t, set] : by_target) alts.push_back({b_.bytes(set), GrammarBuilder::ref(rest[t])});
    return alts;
  };
  for (std::uint64_t r = 0; r < factor; ++r) {
    if (r == 0) b_.add_alternative(rest[r], {});
    for (auto& alt : next(r, '0', '9')) b_.add_alternative(rest[r], std::move(alt));
  }
  std::vector<Sequence> starts = next(0, '1', '9');
  starts.push_back(b_.literal("0"));
  const std::uint32_t unsigned_rule = b_.rule(name + "-uint", std::move(starts));
  Sequence out = b_.optional(b_.literal("-"), "minus");
  out.push_back(GrammarBuilder::ref(unsigned_rule));
  return out;
}

std::uint32_t JsonRules::trie_rule(const std::vector<std::string>& lits, std::size_t begin, std::size_t end,
                                   std::size_t depth, const std::string& name) {
  std::vector<Sequence> alts;
  if (lits[begin].size() == depth) {
    alts.push_back({});
    ++begin;
  }
  for (std::size_t g = begin; g < end;) {
    std::size_t g_end = g + 1;
    while (g_end < end && lits[g_end][depth] == lits[g][depth]) ++g_end;
    const std::string& first = lits[g];
    const std::string& last = lits[g_end - 1];
    std::size_t common = depth;
    while (common < first.size() && common < last.size() && first[common] == last[common]) ++common;
    Sequence alt = b_.literal(std::string_view(first).substr(depth, common - depth));
    if (!(g_end - g == 1 && first.size() == common))
      alt.push_back(GrammarBuilder::ref(trie_rule(lits, g, g_end, common, name)));
    alts.push_back(std::move(alt));
    g = g_end;
  }
  return b_.rule(name, std::move(alts));
}

Sequence JsonRules::literal_set(std::vector<std::string> literals, const std::string& name) {
  std::size_t total = 0;
  for (const auto& l : literals) total += l.size();
  if (total > kMaxLiteralBytes)
    fail(ErrorCode::kInvalidArgument, name, "the values take {} bytes; at most {} are allowed (the compile-time bound)",
         total, kMaxLiteralBytes);
  std::sort(literals.begin(), literals.end());
  literals.erase(std::unique(literals.begin(), literals.end()), literals.end());
  if (literals.size() == 1) return b_.literal(literals[0]);
  return {GrammarBuilder::ref(trie_rule(literals, 0, literals.size(), 0, name))};
}

}  // namespace ogai::grammar
