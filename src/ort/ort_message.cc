#include "ort/ort_message.h"

#include <cctype>

namespace ogai::ort {
namespace {

constexpr std::size_t kMaxBytes = 400;

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// At `i`, "/path/file.cc:123" (a word from '/' to a ':' line number): its length, else 0.
std::size_t source_location(std::string_view s, std::size_t i) {
  std::size_t end = i;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
  const std::string_view word = s.substr(i, end - i);
  const std::size_t colon = word.rfind(':');
  if (!word.starts_with('/') || colon == std::string_view::npos || colon + 1 == word.size())
    return 0;
  for (std::size_t k = colon + 1; k < word.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(word[k]))) return 0;
  return word.size();
}

// At `i`, "onnxruntime::Name::Name(...)" with balanced parentheses (and a trailing "const"): its
// length, else 0.
std::size_t signature(std::string_view s, std::size_t i) {
  if (s.substr(i).rfind("onnxruntime::", 0) != 0) return 0;
  std::size_t k = i;
  while (k < s.size() && (word_char(s[k]) || s[k] == ':' || s[k] == '~' || s[k] == '<' || s[k] == '>')) ++k;
  if (k >= s.size() || s[k] != '(') return k - i;  // a bare qualified name: dropped too
  int depth = 0;
  for (; k < s.size(); ++k) {
    if (s[k] == '(') ++depth;
    if (s[k] == ')' && --depth == 0) break;
  }
  if (k < s.size()) ++k;
  if (s.substr(k).rfind(" const", 0) == 0) k += 6;
  return k - i;
}

}  // namespace

std::string readable_ort_message(std::string_view message) {
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    const bool at_word = i == 0 || !word_char(message[i - 1]);
    std::size_t skip = at_word ? std::max(source_location(message, i), signature(message, i)) : 0;
    if (skip > 0) {
      i += skip;
      continue;
    }
    const char c = std::isspace(static_cast<unsigned char>(message[i])) ? ' ' : message[i];
    if (!(c == ' ' && (out.empty() || out.back() == ' '))) out += c;
    ++i;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ':')) out.pop_back();
  if (out.size() > kMaxBytes) out = out.substr(0, kMaxBytes) + "...";
  return out.empty() ? "an unspecified error" : out;
}

}  // namespace ogai::ort
