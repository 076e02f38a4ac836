// The special tokens a Whisper package's decoder is driven with, read once from its tokenizer:
// <|startoftranscript|>, <|endoftext|>, <|transcribe|>, <|translate|>, <|notimestamps|> (the
// timestamp tokens <|0.00|>... are every id after it, 0.02 s each), <|startofprev|>, and the
// language tokens: the ids between <|startoftranscript|> and <|translate|> that read `<|xx|>`
// (OpenAI whisper's layout: sot + 1 .. sot + number of languages). A tokenizer without
// <|startoftranscript|>, <|endoftext|> or the route's task token is refused naming `model`
// (ApiError 400); <|notimestamps|> and <|startofprev|> may be absent (timestamps and `prompt` are
// then refused by name when asked). Pure apart from the model's tokenizer (const, thread-safe).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ogai/model.h"

namespace ogai::serve {

struct WhisperTokens {
  TokenId start = -1;  // <|startoftranscript|>
  TokenId eos = -1;    // <|endoftext|>
  TokenId transcribe = -1, translate = -1;
  std::optional<TokenId> no_timestamps;  // <|notimestamps|>; timestamps are the ids after it
  std::optional<TokenId> previous;       // <|startofprev|>
  std::vector<TokenId> languages;        // ascending
  std::vector<std::string> codes;        // codes[i]: languages[i] without <| |> ("en")

  // The language token of `code` ("en"); ApiError 400 naming `language` when the model has none.
  TokenId language(const std::string& code) const;
  // The code of a language token ("" when it is not one).
  std::string code_of(TokenId id) const;
};

WhisperTokens whisper_tokens(const Model& model);

}  // namespace ogai::serve
