// MessagesEncoder: a streamed /v1/messages answer as Anthropic's server-sent events, each
// `event: <type>` plus `data: {"type": <type>, ...}`: message_start (the message without
// content, usage.input_tokens), ping, then per content block content_block_start (thinking,
// text, or tool_use with input {}), content_block_delta (thinking_delta, text_delta,
// input_json_delta with partial_json) and content_block_stop; a block opens when the reply's
// first piece of its kind arrives and closes when another kind starts or the reply ends; then
// message_delta {delta: {stop_reason, stop_sequence}, usage: {output_tokens}} and message_stop.
// A failure after the stream began is one `error` event in Anthropic's error shape.
// Not thread-safe: StreamPump calls it one step at a time.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "serve/common/event_encoder.h"
#include "serve/anthropic/messages_api.h"

namespace ogai::serve {

class MessagesEncoder : public EventEncoder {
 public:
  // `stop_of`: the stop sequence that ended a result, if one did (matched_stop()).
  using StopOf = std::function<std::optional<std::string>(const GenerationResult&)>;
  MessagesEncoder(MessagesMeta meta, StopOf stop_of) : meta_(std::move(meta)), stop_of_(std::move(stop_of)) {}

  std::string start() const override;
  std::string text(std::string_view text, nlohmann::json logprobs = nullptr) const override;
  std::string delta(const ChatReplyDelta& delta, nlohmann::json logprobs = nullptr) const override;
  std::string finish(const GenerationResult& result, const ChatReply* reply = nullptr) const override;
  std::string error(const ApiError& error) const override;

 private:
  enum class Block { kNone, kThinking, kText, kToolUse };
  // Opens a block of `kind` (closing the open one) unless one of that kind is open; `tool`
  // starts a new tool_use block.
  std::string open(Block kind, const ToolCallDelta* tool = nullptr) const;
  std::string close() const;
  std::string block_delta(nlohmann::json delta) const;

  MessagesMeta meta_;
  StopOf stop_of_;
  mutable Block open_ = Block::kNone;
  mutable int index_ = -1;  // the open (or last) block's index
  mutable bool tool_use_ = false;  // a tool_use block was streamed
};

}  // namespace ogai::serve
