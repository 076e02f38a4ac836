// What generation returns and streams.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ogai/export.h"
#include "ogai/finish_reason.h"
#include "ogai/token_id.h"

namespace ogai {

struct Timings {
  double load_ms = 0;         // package load (filled by the CLI; generation leaves it 0)
  double queue_ms = 0;        // waiting for a row of the engine's batch (ogai::Engine); in ttft too
  double prefill_ms = 0;      // prompt processing
  double decode_ms = 0;       // from the first generated token to the last
  double ttft_ms = 0;         // time to first token (prefill + first sampling)
  double decode_tok_s = 0;    // generated tokens after the first / decode_ms
  double runtime_ms = 0;      // ogai's own time outside ONNX Runtime during the whole call
  double onnxruntime_ms = 0;  // time inside ONNX Runtime runs
};

// A token id and its log-probability: log-softmax of the model's raw logits (float32, a stable
// log-sum-exp), before any logit bias, penalty, temperature or filter of the sampler.
struct TokenLogprob {
  TokenId id = 0;
  float logprob = 0;  // <= 0
};

// The log-probabilities at one generated position: the chosen token's and the N most likely
// tokens there (N = GenerationOptions::logprobs), by logprob descending, ties by lower id. The
// chosen token may or may not be among them.
struct TokenLogprobs {
  TokenId id = 0;  // the generated token
  float logprob = 0;
  std::vector<TokenLogprob> top;
};

struct GenerationResult {
  std::vector<TokenId> prompt_ids;  // the prompt as fed (after truncation)
  std::vector<TokenId> ids;         // generated ids (a matched stop token id included, EOS too)
  std::string text;                 // generated text, stop string excluded
  FinishReason finish_reason = FinishReason::kLength;
  Timings timings;
  // Prompt tokens whose KV was reused (from a Context or the engine's prefix cache) instead of
  // being prefilled again.
  std::int64_t cached_prompt_tokens = 0;
  int draft_tokens = 0;           // speculative decoding: tokens the drafter proposed
  int accepted_draft_tokens = 0;  // ... and the model accepted
  // With GenerationOptions::logprobs: one entry per element of `ids`, same order; else empty.
  std::vector<TokenLogprobs> logprobs;
  // With GenerationOptions::prompt_logprobs: one entry per element of `prompt_ids`, same order.
  // The first is empty (nothing precedes it, so nothing predicts it); entry i (i >= 1) is prompt
  // id i's log-probability given the ids before it, with the N most likely alternatives there
  // (same semantics as `logprobs`). Else empty.
  std::vector<std::optional<TokenLogprobs>> prompt_logprobs;
};

// One generated token and the text it made printable (possibly empty: incomplete UTF-8, or text
// held back because it could still become a stop string).
// The event that ends a stream may carry only released text: it repeats the last token's id, with
// `logprobs` null.
struct StreamEvent {
  TokenId token = 0;
  std::string_view text;
  // With GenerationOptions::logprobs: this token's entry (valid during the callback only); null
  // when logprobs are off and on the closing event that only releases held-back text.
  const TokenLogprobs* logprobs = nullptr;
};

// Return false to cancel generation (finish_reason becomes kCancelled).
using StreamCallback = std::function<bool(const StreamEvent&)>;

}  // namespace ogai
