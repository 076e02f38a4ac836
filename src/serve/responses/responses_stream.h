// ResponsesEncoder: a streamed /v1/responses answer as OpenAI's typed server-sent events, each
// `event: <type>` plus `data: {"type": <type>, "sequence_number": n, ...}`:
//   response.created, response.in_progress; then per output item, in the order of
//   responses_output() (responses_api.h), its output_index counting from 0:
//   reasoning: response.output_item.added, response.content_part.added (reasoning_text),
//     response.reasoning_text.delta (one per piece), response.reasoning_text.done,
//     response.content_part.done, response.output_item.done;
//   message: response.output_item.added, response.content_part.added (output_text),
//     response.output_text.delta (one per piece), response.output_text.done,
//     response.content_part.done, response.output_item.done (an empty message only when the
//     reply has neither text nor calls);
//   each function call: response.output_item.added (arguments ""),
//     response.function_call_arguments.delta (one per piece), .done {arguments, name},
//     response.output_item.done;
//   and response.completed (or response.incomplete when max_output_tokens ended it), whose
//   response repeats the items. An item is opened by its first piece and closed when the next
//   item opens or the reply ends. A failure after the stream began is one `error` event
//   {code, message, param}. No [DONE]. Not thread-safe: StreamPump calls it one step at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "serve/common/event_encoder.h"
#include "serve/responses/responses_api.h"

namespace ogai::serve {

class ResponsesEncoder : public EventEncoder {
 public:
  // `on_finish`: called from finish() with the reply the stream carried and the finished
  // response object (the store keeps them).
  using OnFinish = std::function<void(const ChatReply&, const nlohmann::json& response)>;
  explicit ResponsesEncoder(ResponsesMeta meta, OnFinish on_finish = {})
      : meta_(std::move(meta)), on_finish_(std::move(on_finish)) {}

  std::string start() const override;
  std::string text(std::string_view text, nlohmann::json logprobs = nullptr) const override;
  std::string delta(const ChatReplyDelta& delta, nlohmann::json logprobs = nullptr) const override;
  std::string finish(const GenerationResult& result, const ChatReply* reply = nullptr) const override;
  std::string error(const ApiError& error) const override;

 private:
  enum class Open { kNone, kReasoning, kMessage, kCall };
  std::string event(const char* type, nlohmann::json fields) const;
  std::string open(Open kind) const;  // closes the open item, then opens one of `kind` (not kCall)
  std::string open_call(const ToolCallDelta& piece) const;
  std::string close() const;          // the open item's closing events ("" when none)
  nlohmann::json where() const;       // item_id, output_index (, content_index) of the open item

  ResponsesMeta meta_;
  OnFinish on_finish_;
  mutable int sequence_ = 0;
  mutable int output_index_ = -1;
  mutable Open open_ = Open::kNone;
  mutable bool message_seen_ = false;
  mutable std::string reasoning_, text_;  // the streamed text of each
  mutable std::vector<ToolCall> calls_;   // the calls streamed so far (the last one open)
};

}  // namespace ogai::serve
