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
// One per response (the offset is state); not thread-safe.
#pragma once

#include <cstddef>
#include <span>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/api_error.h"

namespace ogai::serve {

class LogprobsJson {
 public:
  LogprobsJson(const Model& model, Endpoint endpoint) : model_(model), endpoint_(endpoint) {}

  // The logprobs of `entries` (tokens in order, following those of earlier calls).
  nlohmann::json operator()(std::span<const TokenLogprobs> entries);

 private:
  nlohmann::json chat(std::span<const TokenLogprobs> entries) const;
  nlohmann::json completion(std::span<const TokenLogprobs> entries);

  const Model& model_;
  Endpoint endpoint_;
  std::size_t text_offset_ = 0;
};

}  // namespace ogai::serve
