// What generation returns and streams.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ogai {

enum class FinishReason {
  kStop,       // a stop string or stop token id matched
  kLength,     // max_new_tokens or the context limit was reached
  kEos,        // the model produced an end-of-sequence token
  kCancelled,  // the stream callback asked to stop
};

// "stop", "length", "eos", "cancelled".
const char* finish_reason_name(FinishReason reason);

struct Timings {
  double load_ms = 0;          // package load (filled by the CLI; generation leaves it 0)
  double prefill_ms = 0;       // prompt processing
  double decode_ms = 0;        // from the first generated token to the last
  double ttft_ms = 0;          // time to first token (prefill + first sampling)
  double decode_tok_s = 0;     // generated tokens after the first / decode_ms
  double runtime_ms = 0;       // ogai's own time outside ONNX Runtime during the whole call
  double onnxruntime_ms = 0;   // time inside ONNX Runtime runs
};

struct GenerationResult {
  std::vector<std::int32_t> prompt_ids;  // the prompt as fed (after truncation)
  std::vector<std::int32_t> ids;         // generated ids (a matched stop token id included, EOS too)
  std::string text;                      // generated text, stop string excluded
  FinishReason finish_reason = FinishReason::kLength;
  Timings timings;
  int draft_tokens = 0;           // speculative decoding: tokens the drafter proposed
  int accepted_draft_tokens = 0;  // ... and the model accepted
};

// One generated token and the text it made printable (possibly empty: incomplete UTF-8, or text
// held back because it could still become a stop string).
struct StreamEvent {
  std::int32_t token = 0;
  std::string_view text;
};

// Return false to cancel generation (finish_reason becomes kCancelled).
using StreamCallback = std::function<bool(const StreamEvent&)>;

}  // namespace ogai
