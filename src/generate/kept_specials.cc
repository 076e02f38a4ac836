#include "generate/kept_specials.h"

#include <algorithm>
#include <cctype>

namespace ogai::generate {
namespace {

// `source` with regex escapes of punctuation undone ("\|" -> "|"); escapes such as \n, \w stay.
std::string unescape_punctuation(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    if (c == '\\' && i + 1 < source.size() && !std::isalnum(static_cast<unsigned char>(source[i + 1]))) {
      out += source[++i];
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::vector<TokenId> kept_specials(const tokenizer::Tokenizer& tokenizer, const std::vector<std::string>& sources,
                                   std::span<const TokenId> end_ids) {
  std::vector<std::string> texts;
  for (const std::string& s : sources) {
    texts.push_back(s);
    texts.push_back(unescape_punctuation(s));
  }
  std::vector<TokenId> kept;
  for (std::size_t id = 0; id < tokenizer.vocab_size(); ++id) {
    const auto i = static_cast<TokenId>(id);
    if (!tokenizer.has_id(i) || !tokenizer.is_special(i)) continue;
    if (std::find(end_ids.begin(), end_ids.end(), i) != end_ids.end()) continue;
    const std::string token = tokenizer.id_to_token(i);
    if (token.empty()) continue;
    if (std::any_of(texts.begin(), texts.end(),
                    [&](const std::string& t) { return t.find(token) != std::string::npos; }))
      kept.push_back(i);
  }
  return kept;
}

}  // namespace ogai::generate
