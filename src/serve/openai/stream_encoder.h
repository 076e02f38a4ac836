// StreamEncoder: the server-sent-event text of one choice of a streaming response, in OpenAI's
// order: (chat) a role chunk, one chunk per piece of text, a chunk with the finish reason; then,
// for the whole stream (end()), a usage chunk when stream_options.include_usage was asked and
// `data: [DONE]`. Every chunk carries the choice's `index` (n > 1: the choices' chunks interleave).
// A failure after the stream started is sent as one `data: {"error": ...}` event (OpenAI clients
// raise it) and ends the stream. Immutable after construction; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "serve/openai/api_response.h"
#include "serve/common/event_encoder.h"

namespace ogai::serve {

class StreamEncoder : public EventEncoder {
 public:
  StreamEncoder(ResponseMeta meta, bool include_usage, int index = 0)
      : meta_(std::move(meta)), include_usage_(include_usage), index_(index) {}

  std::string start() const override;                        // chat: the role chunk; completions: ""
  // One chunk; "" when `text` is empty. `logprobs`: those of the tokens it carries (null: not asked).
  std::string text(std::string_view text, nlohmann::json logprobs = nullptr) const override;
  std::string delta(const ChatReplyDelta& delta, nlohmann::json logprobs = nullptr) const override;
  std::string finish(const GenerationResult& result, const ChatReply* reply = nullptr) const override;
  // The usage chunk (include_usage) and [DONE].
  std::string end(std::size_t prompt_tokens, std::size_t completion_tokens) const override;
  std::string error(const ApiError& error) const override;

 private:
  std::string event(nlohmann::json chunk) const;  // with this choice's index

  ResponseMeta meta_;
  bool include_usage_;
  int index_;
};

}  // namespace ogai::serve
