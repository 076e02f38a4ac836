// LogprobsJson: the `logprobs` value of a choice, in OpenAI's shape, from the engine's entries.
//
// Chat: {"content": [{"token", "logprob", "bytes", "top_logprobs": [{"token", "logprob", "bytes"}]}],
//        "refusal": null}
// Completions (legacy): {"tokens": [...], "token_logprobs": [...], "top_logprobs": [{token: logprob}],
//                        "text_offset": [...]}
// A token's string is Model::token_bytes() (its text in the middle of a text, e.g. " there"); `bytes`
// lists those bytes exactly, while a string that is not valid UTF-8 on its own (a byte-fallback
// piece) is written with U+FFFD by to_text(). text_offset counts Unicode code points of the token
// strings from the start of the completion, continuing across the calls of one stream.
// Echo (completions): prompt() reports the prompt's tokens first; their strings are the pieces the
// prompt's decoding (special tokens skipped) adds token by token, so they join to the decoded
// prompt (a piece that does not extend the decoding, e.g. one byte of a character, falls back to
// token_bytes); the first token's logprob and top_logprobs are null. Then operator() continues
// with the generated tokens, and append() joins the two objects.
// One per response (the offset is state); not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"

namespace ogai::serve {

class LogprobsJson {
 public:
  LogprobsJson(const Model& model, Endpoint endpoint) : model_(model), endpoint_(endpoint) {}

  // The logprobs of `entries` (tokens in order, following those of earlier calls).
  nlohmann::json operator()(std::span<const TokenLogprobs> entries);
  // Completions only: the legacy object of the prompt `ids` with their entries (same size;
  // GenerationResult::prompt_logprobs). Decodes each prefix of the prompt: quadratic in its length.
  nlohmann::json prompt(std::span<const std::optional<TokenLogprobs>> entries, std::span<const std::int32_t> ids);
  // Appends the arrays of the legacy object `more` to those of `into`.
  static void append(nlohmann::json& into, const nlohmann::json& more);

 private:
  nlohmann::json chat(std::span<const TokenLogprobs> entries) const;
  nlohmann::json completion(std::span<const TokenLogprobs> entries);
  // Adds one token of the legacy shape (null logprob and top for an empty entry).
  void add_completion_token(nlohmann::json& out, const std::string& token, const TokenLogprobs* entry);

  const Model& model_;
  Endpoint endpoint_;
  std::size_t text_offset_ = 0;
};

}  // namespace ogai::serve
