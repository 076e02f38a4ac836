// ResponsesEncoder: a streamed /v1/responses answer as OpenAI's typed server-sent events, each
// `event: <type>` plus `data: {"type": <type>, "sequence_number": n, ...}`:
//   response.created, response.in_progress, response.output_item.added,
//   response.content_part.added, response.output_text.delta (one per piece of text),
//   response.output_text.done, response.content_part.done, response.output_item.done, and
//   response.completed (or response.incomplete when max_output_tokens ended it).
// A failure after the stream began is one `error` event {code, message, param}. No [DONE].
// Not thread-safe: StreamPump calls it one step at a time (it numbers the events and collects
// the text for the closing events).
#pragma once

#include <string>

#include "serve/event_encoder.h"
#include "serve/responses_api.h"

namespace ogai::serve {

class ResponsesEncoder : public EventEncoder {
 public:
  explicit ResponsesEncoder(ResponsesMeta meta) : meta_(std::move(meta)) {}

  std::string start() const override;
  std::string text(std::string_view text, nlohmann::json logprobs = nullptr) const override;
  std::string finish(const GenerationResult& result, const ChatReply* reply = nullptr) const override;  // reply unused
  std::string error(const ApiError& error) const override;

 private:
  std::string event(const char* type, nlohmann::json fields) const;
  nlohmann::json part(bool done) const;

  ResponsesMeta meta_;
  mutable int sequence_ = 0;
  mutable std::string text_;  // the text streamed so far
};

}  // namespace ogai::serve
