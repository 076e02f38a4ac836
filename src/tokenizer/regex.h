// Regular expressions with the meaning tokenizer.json gives them (Hugging Face compiles them with
// Oniguruma): a pattern is translated to PCRE2 (UTF, Unicode properties, JIT) with \s, \S, \w,
// \W and \d rewritten to Oniguruma's Unicode definitions. A compiled Regex is immutable and safe
// to use from many threads (match scratch space is per thread).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::tokenizer {

class Regex {
 public:
  // Throws ogai::Error (kParse) naming `where` when the pattern does not compile.
  Regex(std::string_view pattern, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  const std::string& pattern() const { return pattern_; }

  // Non-overlapping matches, left to right, as [start, end) byte offsets (empty matches included).
  std::vector<std::pair<std::size_t, std::size_t>> find_all(std::string_view text) const;

 private:
  std::string pattern_;
  struct Code;
  std::unique_ptr<Code> code_;
};

// Translates Oniguruma escapes that PCRE2 reads differently; exposed for tests.
std::string translate_oniguruma(std::string_view pattern);

// Escapes `literal` so that it matches itself.
std::string regex_escape(std::string_view literal);

}  // namespace ogai::tokenizer
