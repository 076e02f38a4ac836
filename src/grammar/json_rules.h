// JsonRules: the building blocks JSON grammars share, made once per builder on first use:
// whitespace, any JSON value / object / array / string / number, string content with length
// bounds, integers and numbers within bounds, the string formats, and literal sets (enum values)
// laid out as a trie so that many values sharing prefixes stay one parse stack.
//
// Whitespace between tokens is a run of at most `whitespace` blanks (space, tab, newline,
// carriage return; 0 = none: compact JSON), a bound so a model cannot loop on blanks forever;
// at most kMaxWhitespace; or, with kIndentedWhitespace, nothing, one space, or one newline and at
// most kMaxIndent spaces or tabs (JSON as models write it inside a call). Strings spell every character either as
// itself (UTF-8; not '"', '\' or a control character) or as a JSON escape (\uXXXX never a surrogate). Numbers: JSON's
// grammar; with bounds, no exponent (numbers.md in docs/structured_output.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grammar/codepoints.h"
#include "grammar/grammar.h"

namespace ogai::grammar {

inline constexpr int kMaxWhitespace = 256;
inline constexpr int kIndentedWhitespace = -1;
inline constexpr int kMaxIndent = 16;
inline constexpr std::size_t kMaxLiteralBytes = 1u << 20;  // enum/const values, all together

// How values are spelled. The default is JSON. A dialect may write object keys bare (a declared
// name made of key characters, is_bare_key(); other keys as strings) and strings between
// delimiters other than '"' with their text raw, as written, no escapes (Gemma-4:
// {location:<|"|>Paris<|"|>}). A raw string cannot hold its close delimiter: an unbounded string
// is any text without it; a string with a length, pattern or format holds no character equal to
// the close delimiter's first one (a subset). `sorted_keys`: declared properties in the order of
// Jinja's dictsort (lower-cased byte order; a template that renders arguments through dictsort).
struct JsonDialect {
  bool bare_keys = false;
  std::string string_open = "\"", string_close = "\"";
  bool sorted_keys = false;

  bool raw_strings() const { return string_open != "\"" || string_close != "\""; }
  bool is_json() const { return !bare_keys && !raw_strings() && !sorted_keys; }
};

// Whether a dialect with bare keys writes `name` bare: a non-empty run of ASCII letters, digits,
// '_', '$', '-', '+', '.' or non-ASCII bytes (what the reply reader reads as a bare key).
bool is_bare_key(const std::string& name);

struct NumberBound {
  std::int64_t value = 0;
  bool exclusive = false;
};

class JsonRules {
 public:
  // `whitespace`: the longest blank run between tokens (clamped to [0, kMaxWhitespace]), or
  // kIndentedWhitespace.
  explicit JsonRules(GrammarBuilder& builder, int whitespace = 0, JsonDialect dialect = {});

  const JsonDialect& dialect() const { return dialect_; }
  // A string of the dialect whose text is `text` exactly, or nullopt when the dialect cannot
  // write it (a raw string holding its close delimiter).
  std::optional<std::string> string_literal(const std::string& text) const;
  // An object key: bare when the dialect writes `name` bare, else as a string.
  std::optional<std::string> key_literal(const std::string& name) const;
  // A string whose content is the regex (kFullMatch or kSearch per `search`), between the
  // dialect's delimiters (JSON-escaped in JSON).
  Sequence string_with_regex(const std::string& pattern, bool search, const std::string& where);

  Element ws();
  Element value();
  Element object();
  Element array();
  Element string();
  Element number();
  Element integer();
  Element boolean();
  Element null();
  Element string_char();  // one character of string content (itself or an escape)

  // A string of [min, max] characters (max < 0: unbounded), its opening delimiter included.
  Sequence string_with_length(std::int64_t min, std::int64_t max);
  // A string in the given format (is_enforced_format() in schema_compiler.h: date, time,
  // date-time, duration, uuid, email, idn-email, hostname, idn-hostname, ipv4, ipv6, uri,
  // uri-reference, iri, iri-reference); nullopt for others.
  std::optional<Sequence> string_with_format(const std::string& format, const std::string& where);
  // Integers in [lo, hi] (either side unset: unbounded).
  Sequence integer_range(std::optional<std::int64_t> lo, std::optional<std::int64_t> hi, const std::string& name);
  // Numbers within integer-valued bounds (inclusive or exclusive), without exponent.
  Sequence number_range(std::optional<NumberBound> lo, std::optional<NumberBound> hi, const std::string& name);
  // The integers that are multiples of `factor` (1 to 10000), exact: a residue automaton over
  // the decimal digits (factor rules).
  Sequence multiples(std::uint64_t factor, const std::string& name);
  // Exactly one of `literals` (raw bytes each), as a trie of rules.
  Sequence literal_set(std::vector<std::string> literals, const std::string& name);

 private:
  Element cached(std::optional<std::uint32_t>& slot, const char* name, std::vector<Sequence> (JsonRules::*make)());
  std::vector<Sequence> make_value();
  std::vector<Sequence> make_object();
  std::vector<Sequence> make_array();
  std::vector<Sequence> make_string();
  std::vector<Sequence> make_number();
  std::vector<Sequence> make_integer();
  std::vector<Sequence> make_char();
  std::vector<Sequence> make_raw_string();  // open, any text without the close delimiter, close
  std::vector<Sequence> make_raw_char();
  CodepointSet raw_excluded() const;  // the close delimiter's first character
  Sequence digits(int min, int max);  // [0-9]{min,max} (max < 0: unbounded)
  // Non-negative integers in [lo, hi] (hi unset: unbounded) as alternatives.
  std::vector<Sequence> uint_range(std::uint64_t lo, std::optional<std::uint64_t> hi);
  void same_length_range(const std::string& lo, const std::string& hi, Sequence prefix, std::vector<Sequence>& out);
  std::vector<Sequence> nonneg_number(NumberBound lo, std::optional<NumberBound> hi);
  std::uint32_t trie_rule(const std::vector<std::string>& lits, std::size_t begin, std::size_t end, std::size_t depth,
                          const std::string& name);

  GrammarBuilder& b_;
  int whitespace_ = 0;
  JsonDialect dialect_;
  std::optional<std::uint32_t> ws_, value_, object_, array_, string_, number_, integer_, char_, bool_, null_, frac_,
      zero_frac_, nonzero_frac_, raw_char_;
};

}  // namespace ogai::grammar
