#include "chat/reply/json_stream.h"

#include <cstdint>

#include "base/json_parse.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::reply {
namespace {

bool is_literal_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+' || c == '-' ||
         c == '.';
}

bool is_key_char(char c) {
  return is_literal_char(c) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

// JSON's number grammar.
bool is_number(std::string_view s) {
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') ++i;
  else if (!digits()) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// The canonical spelling of a literal ("" when it is none).
std::string literal_text(const std::string& t) {
  if (t == "true" || t == "True") return "true";
  if (t == "false" || t == "False") return "false";
  if (t == "null" || t == "None") return "null";
  return is_number(t) ? t : "";
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

using jinja::append_utf8;  // one UTF-8 encoder for the chat stage (chat/jinja/unicode.h)

// The length of the longest suffix of `s` that is a proper prefix of `marker`.
std::size_t partial_suffix(std::string_view s, std::string_view marker) {
  for (std::size_t n = std::min(s.size(), marker.size() - 1); n > 0; --n)
    if (marker.starts_with(s.substr(s.size() - n))) return n;
  return 0;
}

}  // namespace

JsonStream::JsonStream(const JsonDialect& dialect, JsonSink& sink) : dialect_(dialect), sink_(sink) {}

void JsonStream::feed(std::string_view text) {
  if (failed_ || done()) {
    pending_.append(text);
    return;
  }
  pending_.append(text);
  while (!failed_ && step()) {
  }
  if (at_ > 4096 && at_ * 2 > pending_.size()) {
    consumed_before_ += at_;
    pending_.erase(0, at_);
    at_ = 0;
  }
}

void JsonStream::finish() {
  at_end_ = true;
  while (!failed_ && step()) {
  }
}

std::string JsonStream::closers(std::size_t depth) const {
  if (done() || !started_) return "";
  std::string s = in_text_ ? "\"" : "";
  for (std::size_t k = stack_.size(); k > depth; --k) s += stack_[k - 1].object ? '}' : ']';
  return s;
}

void JsonStream::out(std::string_view canonical) {
  if (!canonical.empty()) sink_.text(canonical);
}

bool JsonStream::skip_space() {
  while (at_ < pending_.size() && is_space(pending_[at_])) ++at_;
  return at_ < pending_.size();
}

bool JsonStream::step() {
  switch (state_) {
    case State::kValue: return begin_value();
    case State::kKeyOrEnd:
    case State::kKey: return read_key_start();
    case State::kColon: return read_colon();
    case State::kCommaOrEnd: return read_after_value();
    case State::kString: return read_string();
    case State::kDelimString: return read_delim_string();
    case State::kBareKey: return read_bare_key();
    case State::kLiteral: return read_literal();
    case State::kDone: return false;
  }
  return false;
}

void JsonStream::open_value() {
  if (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.count > 0) out(",");
    if (f.object) {
      std::string k = "\"";
      key_string_ = false;
      std::string saved;
      saved.swap(key_);
      // The key in canonical form.
      for (unsigned char c : saved) {
        if (c == '"') k += "\\\"";
        else if (c == '\\') k += "\\\\";
        else if (c == '\n') k += "\\n";
        else if (c == '\r') k += "\\r";
        else if (c == '\t') k += "\\t";
        else if (c == '\b') k += "\\b";
        else if (c == '\f') k += "\\f";
        else if (c < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          k += "\\u00";
          k += kHex[c >> 4];
          k += kHex[c & 15];
        } else {
          k += static_cast<char>(c);
        }
      }
      k += "\":";
      out(k);
      path_.push_back(std::move(saved));
    } else {
      path_.push_back(std::to_string(f.count));
    }
  }
  started_ = true;
  sink_.start(path_);
}

void JsonStream::close_value() {
  sink_.end(path_);
  if (stack_.empty()) {
    state_ = State::kDone;
    value_end_ = consumed_before_ + at_;
    return;
  }
  path_.pop_back();
  stack_.back().count++;
  state_ = State::kCommaOrEnd;
}

bool JsonStream::begin_value() {
  if (!skip_space()) return false;
  const char c = pending_[at_];
  if ((c == ',' || c == '}') && !stack_.empty() && stack_.back().object) {
    // A member with nothing after its colon (what a template prints for None): null.
    open_value();
    out("null");
    close_value();
    return true;
  }
  if (c == ']' && !stack_.empty() && !stack_.back().object && stack_.back().count == 0) {
    ++at_;
    out("]");
    stack_.pop_back();
    close_value();
    return true;
  }
  if (c == '{' || c == '[') {
    // The depth budget (base/json_parse.h): deeper containers fail the stream, so what it writes
    // can be parsed, copied and printed by recursive code (issue 37: 100,000 levels crashed).
    if (stack_.size() >= static_cast<std::size_t>(kMaxJsonDepth)) {
      fail();
      return false;
    }
    ++at_;
    open_value();
    out(c == '{' ? "{" : "[");
    stack_.push_back({c == '{'});
    state_ = c == '{' ? State::kKeyOrEnd : State::kValue;
    return true;
  }
  if (c == '"') {
    ++at_;
    open_value();
    out("\"");
    in_text_ = true;
    key_string_ = false;
    state_ = State::kString;
    return true;
  }
  for (std::size_t d = 0; d < dialect_.string_delims.size(); ++d) {
    const std::string& open = dialect_.string_delims[d].first;
    if (rest().starts_with(open)) {
      at_ += open.size();
      open_value();
      out("\"");
      in_text_ = true;
      key_string_ = false;
      delim_ = static_cast<int>(d);
      state_ = State::kDelimString;
      return true;
    }
    if (!at_end_ && open.starts_with(rest())) return false;
  }
  if (is_literal_char(c)) {
    token_.clear();
    state_ = State::kLiteral;
    return true;
  }
  fail();
  return false;
}

bool JsonStream::read_key_start() {
  if (!skip_space()) return false;
  const char c = pending_[at_];
  if (c == '}' && !stack_.empty() && stack_.back().object) {
    ++at_;
    out("}");
    stack_.pop_back();
    close_value();
    return true;
  }
  key_.clear();
  key_string_ = true;
  if (c == '"') {
    ++at_;
    state_ = State::kString;
    return true;
  }
  for (std::size_t d = 0; d < dialect_.string_delims.size(); ++d) {
    const std::string& open = dialect_.string_delims[d].first;
    if (rest().starts_with(open)) {
      at_ += open.size();
      delim_ = static_cast<int>(d);
      state_ = State::kDelimString;
      return true;
    }
    if (!at_end_ && open.starts_with(rest())) return false;
  }
  if (dialect_.unquoted_keys && is_key_char(c)) {
    state_ = State::kBareKey;
    return true;
  }
  fail();
  return false;
}

bool JsonStream::read_colon() {
  if (!skip_space()) return false;
  if (pending_[at_] != ':') {
    fail();
    return false;
  }
  ++at_;
  state_ = State::kValue;
  return true;
}

bool JsonStream::read_after_value() {
  if (!skip_space()) return false;
  const char c = pending_[at_];
  const bool object = stack_.back().object;
  if (c == ',') {
    ++at_;
    state_ = object ? State::kKey : State::kValue;
    return true;
  }
  if ((object && c == '}') || (!object && c == ']')) {
    ++at_;
    out(object ? "}" : "]");
    stack_.pop_back();
    close_value();
    return true;
  }
  fail();
  return false;
}

void JsonStream::put(std::string_view raw) {
  if (key_string_) {
    key_.append(raw);
    return;
  }
  std::string s;
  std::size_t from = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const unsigned char c = raw[i];
    const char* esc = nullptr;
    char hex[7];
    if (c == '"') esc = "\\\"";
    else if (c == '\\') esc = "\\\\";
    else if (c == '\n') esc = "\\n";
    else if (c == '\r') esc = "\\r";
    else if (c == '\t') esc = "\\t";
    else if (c == '\b') esc = "\\b";
    else if (c == '\f') esc = "\\f";
    else if (c < 0x20) {
      static constexpr char kHex[] = "0123456789abcdef";
      hex[0] = '\\', hex[1] = 'u', hex[2] = '0', hex[3] = '0', hex[4] = kHex[c >> 4], hex[5] = kHex[c & 15];
      hex[6] = 0;
      esc = hex;
    }
    if (!esc) continue;
    s.append(raw.substr(from, i - from));
    s += esc;
    from = i + 1;
  }
  s.append(raw.substr(from));
  out(s);
}

bool JsonStream::read_string() {
  std::size_t i = at_;
  while (i < pending_.size() && pending_[i] != '"' && pending_[i] != '\\') ++i;
  if (i > at_) {
    if (high_surrogate_) {
      std::string r;
      append_utf8(r, 0xFFFD);
      put(r);
      high_surrogate_ = 0;
    }
    put(std::string_view(pending_).substr(at_, i - at_));
    at_ = i;
  }
  if (at_ == pending_.size()) {
    if (at_end_) fail();
    return false;
  }
  if (pending_[at_] == '"') {
    ++at_;
    if (high_surrogate_) {
      std::string r;
      append_utf8(r, 0xFFFD);
      put(r);
      high_surrogate_ = 0;
    }
    if (key_string_) {
      state_ = State::kColon;
      return true;
    }
    out("\"");
    in_text_ = false;
    close_value();
    return true;
  }
  // An escape.
  const std::string_view r = rest();
  if (r.size() < 2) {
    if (at_end_) fail();
    return false;
  }
  std::string decoded;
  std::size_t used = 2;
  switch (r[1]) {
    case '"': decoded = "\""; break;
    case '\\': decoded = "\\"; break;
    case '/': decoded = "/"; break;
    case 'b': decoded = "\b"; break;
    case 'f': decoded = "\f"; break;
    case 'n': decoded = "\n"; break;
    case 'r': decoded = "\r"; break;
    case 't': decoded = "\t"; break;
    case 'u': {
      if (r.size() < 6) {
        if (at_end_) fail();
        return false;
      }
      std::uint32_t cp = 0;
      for (int k = 2; k < 6; ++k) {
        const int h = hex_value(r[k]);
        if (h < 0) {
          fail();
          return false;
        }
        cp = cp * 16 + h;
      }
      used = 6;
      if (cp >= 0xD800 && cp < 0xDC00) {
        if (high_surrogate_) append_utf8(decoded, 0xFFFD);
        high_surrogate_ = cp;
        at_ += used;
        if (!decoded.empty()) put(decoded);
        return true;
      }
      if (cp >= 0xDC00 && cp < 0xE000 && high_surrogate_) {
        cp = 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (cp - 0xDC00);
        high_surrogate_ = 0;
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        cp = 0xFFFD;
      }
      append_utf8(decoded, cp);
      break;
    }
    default: fail(); return false;
  }
  if (high_surrogate_) {
    std::string lone;
    append_utf8(lone, 0xFFFD);
    decoded = lone + decoded;
    high_surrogate_ = 0;
  }
  at_ += used;
  put(decoded);
  return true;
}

bool JsonStream::read_delim_string() {
  const std::string& close = dialect_.string_delims[delim_].second;
  const std::string_view r = rest();
  const std::size_t found = r.find(close);
  if (found == std::string_view::npos) {
    const std::size_t hold = at_end_ ? 0 : partial_suffix(r, close);
    put(r.substr(0, r.size() - hold));
    at_ += r.size() - hold;
    if (at_end_) fail();
    return false;
  }
  put(r.substr(0, found));
  at_ += found + close.size();
  if (key_string_) {
    state_ = State::kColon;
    return true;
  }
  out("\"");
  in_text_ = false;
  close_value();
  return true;
}

bool JsonStream::read_bare_key() {
  while (at_ < pending_.size() && is_key_char(pending_[at_])) key_ += pending_[at_++];
  if (at_ == pending_.size() && !at_end_) return false;
  state_ = State::kColon;
  return true;
}

bool JsonStream::read_literal() {
  while (at_ < pending_.size() && is_literal_char(pending_[at_])) token_ += pending_[at_++];
  if (at_ == pending_.size() && !at_end_) return false;
  const std::string text = literal_text(token_);
  if (text.empty()) {
    fail();
    return false;
  }
  open_value();
  out(text);
  close_value();
  return true;
}

namespace {
struct Collect : JsonSink {
  std::string all;
  void start(const JsonPath&) override {}
  void text(std::string_view t) override { all.append(t); }
  void end(const JsonPath&) override {}
};
}  // namespace

CanonicalJson canonical_json(std::string_view text, const JsonDialect& dialect) {
  Collect sink;
  JsonStream s(dialect, sink);
  s.feed(text);
  s.finish();
  CanonicalJson r;
  if (s.failed() || !s.done()) return r;
  for (std::size_t i = s.value_end(); i < text.size(); ++i)
    if (!(text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r')) return r;
  r.ok = true;
  r.text = std::move(sink.all);
  return r;
}

}  // namespace ogai::chat::reply
