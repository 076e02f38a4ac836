// Pattern: a regular expression from a response template (PCRE2, compiled as transformers
// compiles them: Unicode-aware, DOTALL, not MULTILINE; `(?P<name>...)` groups), or a list of
// literal strings. Matching is step-budgeted (PCRE2 match and depth limits), so a pathological
// pattern ends as "no match" instead of backtracking without bound, and it supports partial
// matching, which the streaming parser uses to hold back text that may still become a delimiter.
// Immutable after construction; match() is thread-safe.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ogai::chat::reply {

struct PatternMatch {
  enum class Kind { kNone, kPartial, kFull };
  Kind kind = Kind::kNone;
  std::size_t start = 0;  // kPartial / kFull: where the (possible) match begins
  std::size_t end = 0;    // kFull: one past its end
  std::map<std::string, std::string> groups;  // kFull: named groups that took part
  std::optional<std::string> first_group;     // kFull: group 1, when the pattern has one and it took part
};

class Pattern {
 public:
  // A regex. Throws ogai::Error kInvalidArgument at `where` with PCRE2's message and offset.
  static Pattern regex(const std::string& source, const std::string& where);
  // Any of the literal strings (escaped into a regex alternation, longest first).
  static Pattern literals(const std::vector<std::string>& texts, const std::string& where);

  // The first match in subject at or after `offset`. With `partial`, a match that the subject's
  // end cuts short is reported as kPartial at its start (when no full match starts earlier).
  PatternMatch find(std::string_view subject, std::size_t offset, bool partial) const;
  // A match that starts exactly at `offset` (same rules).
  PatternMatch at(std::string_view subject, std::size_t offset, bool partial) const;
  const std::string& source() const { return source_; }

  static constexpr std::uint32_t kMatchLimit = 1'000'000;  // backtracking steps per match call

 private:
  struct Code;
  PatternMatch run(std::string_view subject, std::size_t offset, bool partial, bool anchored) const;
  std::shared_ptr<const Code> code_;
  std::string source_;
};

}  // namespace ogai::chat::reply
