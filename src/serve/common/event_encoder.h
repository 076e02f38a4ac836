// EventEncoder: the server-sent-event text of one streaming response in one API's format: Chat
// Completions and Completions chunks (StreamEncoder, stream_encoder.h) or the Responses API's
// typed events (ResponsesEncoder, responses_stream.h). One encoder per choice of the response:
// StreamPump calls start() once, text() per piece of generated text (delta() per parsed piece),
// then finish() or error() once, each after the previous returned (an encoder may count its
// events); once every choice finished, end() of the first choice's encoder closes the stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"
#include "serve/common/api_error.h"

namespace ogai::serve {

class EventEncoder {
 public:
  virtual ~EventEncoder() = default;
  virtual std::string start() const = 0;  // the events before the first text ("" for none)
  // The events carrying `text` ("" when it is empty). `logprobs`: those of its tokens (null: not asked).
  virtual std::string text(std::string_view text, nlohmann::json logprobs = nullptr) const = 0;
  // Chat with tools or reasoning: the events of a parsed delta (include/ogai/chat.h). Only chat
  // completions parse their replies; by default a delta's content goes out as text().
  virtual std::string delta(const ChatReplyDelta& delta, nlohmann::json logprobs = nullptr) const {
    return text(delta.content, std::move(logprobs));
  }
  // The choice's last events. `reply`: the parsed reply when there is one (its tool calls make
  // a chat completion's finish reason "tool_calls").
  virtual std::string finish(const GenerationResult& result, const ChatReply* reply = nullptr) const = 0;
  // The stream's last events, after every choice's finish(): the prompt's tokens (once) and the
  // tokens every choice generated. "" by default.
  virtual std::string end(std::size_t prompt_tokens, std::size_t completion_tokens) const {
    (void)prompt_tokens;
    (void)completion_tokens;
    return {};
  }
  virtual std::string error(const ApiError& error) const = 0;            // a failure after the stream began
};

}  // namespace ogai::serve
