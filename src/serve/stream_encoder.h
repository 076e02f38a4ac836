// StreamEncoder: the server-sent-event text of one streaming response, in OpenAI's order:
// (chat) a role chunk, one chunk per piece of text, a chunk with the finish reason, a usage chunk
// when stream_options.include_usage was asked, then `data: [DONE]`. A failure after the stream
// started is sent as one `data: {"error": ...}` event (OpenAI clients raise it) and ends the stream.
// Immutable after construction; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "serve/api_response.h"
#include "serve/event_encoder.h"

namespace ogai::serve {

class StreamEncoder : public EventEncoder {
 public:
  StreamEncoder(ResponseMeta meta, bool include_usage) : meta_(std::move(meta)), include_usage_(include_usage) {}

  std::string start() const override;                        // chat: the role chunk; completions: ""
  // One chunk; "" when `text` is empty. `logprobs`: those of the tokens it carries (null: not asked).
  std::string text(std::string_view text, nlohmann::json logprobs = nullptr) const override;
  std::string delta(const ChatReplyDelta& delta, nlohmann::json logprobs = nullptr) const override;
  std::string finish(const GenerationResult& result, const ChatReply* reply = nullptr) const override;
  std::string error(const ApiError& error) const override;

 private:
  ResponseMeta meta_;
  bool include_usage_;
};

}  // namespace ogai::serve
