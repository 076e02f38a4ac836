#include "serve/audio/whisper_tokens.h"

#include <algorithm>

#include "serve/common/request_fields.h"

namespace ogai::serve {
namespace {

// The id of `text` when the tokenizer reads it as exactly one token.
std::optional<TokenId> single_token(const Model& model, const std::string& text) {
  const std::vector<TokenId> ids = model.tokenize(text, /*add_special_tokens=*/false);
  if (ids.size() != 1) return std::nullopt;
  return ids[0];
}

TokenId required(const Model& model, const char* text) {
  if (auto id = single_token(model, text)) return *id;
  throw unsupported("model", std::string("model: this encoder-decoder package's tokenizer has no ") + text +
                                 " token; the transcription routes drive Whisper's decoder");
}

// "<|xx|>" -> "xx" for a lowercase code of 2 to 5 letters (Whisper's "haw", "yue"), else "".
std::string language_code(const std::string& token) {
  if (token.size() < 6 || token.size() > 9 || token.rfind("<|", 0) != 0 || token.substr(token.size() - 2) != "|>")
    return "";
  const std::string code = token.substr(2, token.size() - 4);
  for (char c : code)
    if (c < 'a' || c > 'z') return "";
  return code;
}

}  // namespace

TokenId WhisperTokens::language(const std::string& code) const {
  const auto at = std::find(codes.begin(), codes.end(), code);
  if (at == codes.end())
    throw invalid_request("language", "language: " + quote_value(code) + " is not a language this model knows (<|" +
                                          code + "|> is not one of its tokens); give an ISO-639-1 code such as \"en\"");
  return languages[static_cast<std::size_t>(at - codes.begin())];
}

std::string WhisperTokens::code_of(TokenId id) const {
  const auto at = std::find(languages.begin(), languages.end(), id);
  return at == languages.end() ? "" : codes[static_cast<std::size_t>(at - languages.begin())];
}

WhisperTokens whisper_tokens(const Model& model) {
  WhisperTokens t;
  t.start = required(model, "<|startoftranscript|>");
  t.eos = required(model, "<|endoftext|>");
  t.transcribe = required(model, "<|transcribe|>");
  t.translate = required(model, "<|translate|>");
  t.no_timestamps = single_token(model, "<|notimestamps|>");
  t.previous = single_token(model, "<|startofprev|>");
  for (TokenId id = t.start + 1; id < t.translate; ++id) {
    const TokenId one[] = {id};
    const std::string code = language_code(model.detokenize(one));
    if (code.empty()) continue;
    t.languages.push_back(id);
    t.codes.push_back(code);
  }
  return t;
}

}  // namespace ogai::serve
