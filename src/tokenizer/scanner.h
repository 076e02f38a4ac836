// Hand-written matchers for the split regexes almost every byte-level BPE tokenizer uses, far
// faster than a regex engine and producing the same matches:
//   GPT-2:    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   Llama 3 / cl100k (digit groups of 3) and Qwen 2 (single digits):
//     (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
//     \s*[\r\n]+|\s+(?!\S)|\s+
// Tests compare them with the PCRE2 translation of the same patterns. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::tokenizer {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;
using Scanner = void (*)(std::string_view text, Matches& out);

// The GPT-2 pattern that the ByteLevel pre-tokenizer applies when use_regex is true.
extern const std::string_view kGpt2Pattern;

// The scanner for `pattern`, or nullptr when it has none (use a Regex then).
Scanner find_scanner(std::string_view pattern);

void scan_gpt2(std::string_view text, Matches& out);
void scan_cl100k(std::string_view text, Matches& out);
void scan_qwen2(std::string_view text, Matches& out);

}  // namespace ogai::tokenizer
