// JsonStream: reads a JSON value, or a JSON-like dialect (bare object keys; strings between custom
// delimiters such as Gemma-4's <|"|> ... <|"|>, their text taken as written), as text arrives, and
// writes it as canonical compact JSON ({"k":v,...}: no whitespace, strings re-escaped as
// json.dumps(ensure_ascii=False) escapes them, numbers and true/false/null as written).
//
// Output is released only once it is certain, and always as a prefix that closing brackets (and a
// quote, inside a string) make valid: a comma is written with the member after it, a key with the
// start of its value. A Sink sees the canonical text with where it belongs: start(path) before a
// value's first character, text pieces, end(path) after its last. The path is the list of keys
// and array indices (as decimal strings) from the top-level value. Not thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::chat::reply {

struct JsonDialect {
  bool unquoted_keys = false;
  std::vector<std::pair<std::string, std::string>> string_delims;  // [open, close] pairs
};

using JsonPath = std::vector<std::string>;

class JsonSink {
 public:
  virtual ~JsonSink() = default;
  virtual void start(const JsonPath& path) = 0;
  virtual void text(std::string_view canonical) = 0;
  virtual void end(const JsonPath& path) = 0;
};

class JsonStream {
 public:
  JsonStream(const JsonDialect& dialect, JsonSink& sink);

  // Reads `text`. Once the top-level value has ended, the rest is left unread (value_end()).
  void feed(std::string_view text);
  // The input ended: completes a number or literal that ran to the end.
  void finish();

  bool failed() const { return failed_; }   // the input is not one JSON(-dialect) value
  bool done() const { return state_ == State::kDone; }  // the top-level value is complete
  bool started() const { return started_; }
  // done(): how many bytes of all the input fed belong to the value (what follows is not read).
  std::size_t value_end() const { return value_end_; }
  // failed(): the offset in all the input fed of the byte that broke it.
  std::size_t fail_at() const { return fail_at_; }
  // What closes the canonical text written so far into valid JSON ("" once done); with `depth`,
  // only the containers nested `depth` or more levels deep (those inside a value at that depth).
  std::string closers(std::size_t depth = 0) const;

 private:
  enum class State { kValue, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kString, kDelimString, kBareKey,
                     kLiteral, kDone };
  struct Frame {
    bool object;
    std::size_t count = 0;  // members or items so far
  };
  bool step();  // consumes from pending_; false when it needs more input
  bool begin_value();
  bool read_string();
  bool read_delim_string();
  bool read_bare_key();
  bool read_literal();
  bool read_key_start();
  bool read_after_value();
  bool read_colon();
  void put(std::string_view raw);  // string text (UTF-8): into key_, or escaped to the sink
  void out(std::string_view canonical);
  bool is_space(char c) const { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
  bool skip_space();  // false when nothing but space is pending
  std::string_view rest() const { return std::string_view(pending_).substr(at_); }
  void open_value();          // writes the pending comma/key, calls sink start
  void close_value();         // sink end, then the parent's state
  void fail() {
    failed_ = true;
    fail_at_ = consumed_before_ + at_;
  }

  JsonDialect dialect_;
  JsonSink& sink_;
  State state_ = State::kValue;
  std::vector<Frame> stack_;
  JsonPath path_;
  std::string pending_;     // input; bytes before at_ are consumed
  std::size_t at_ = 0;
  std::size_t consumed_before_ = 0;  // bytes dropped from the front of pending_
  std::size_t value_end_ = 0;
  std::size_t fail_at_ = 0;
  std::string token_;       // a literal or key being read
  std::string key_;         // the key whose value comes next
  int delim_ = -1;          // the custom delimiter of the string being read
  bool key_string_ = false; // the string being read is a key
  bool in_text_ = false;    // inside a canonical string (a quote closes it)
  bool started_ = false;
  bool failed_ = false;
  bool at_end_ = false;
  std::uint32_t high_surrogate_ = 0;
};

// The whole of `text` in canonical form, or nullopt-like "" with ok=false when it is not a value.
struct CanonicalJson {
  bool ok = false;
  std::string text;
};
CanonicalJson canonical_json(std::string_view text, const JsonDialect& dialect);

}  // namespace ogai::chat::reply
