// ReplyParser: a model's reply text, fed in pieces as it streams, split into content, reasoning
// and tool calls by the prompt's ReplyLayout (chat/reply/reply_layout.h): the engine behind
// ogai::parse_chat_reply and ogai::ChatReplyParser (include/ogai/chat.h). A response template
// streams (chat/reply/response_parser.h has the rules); the x-regex response_schema form reads the
// whole reply, so with it everything is released when the reply ends. A prompt without a layout
// uses the built-in named by its tool_call_format (with <think> reasoning when reasoning_open is
// set). Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "chat/reply/response_parser.h"
#include "ogai/chat.h"

namespace ogai::chat {

class ReplyParser {
 public:
  explicit ReplyParser(const ChatPrompt& prompt);
  ChatReplyDelta feed(std::string_view text);
  ChatReplyDelta finish();
  const ChatReply& reply() const { return parser_ ? parser_->reply() : reply_; }
  // The message in transformers' parse_response shape (after finish()).
  reply::Json message() const;

 private:
  std::shared_ptr<const ReplyLayout> layout_;
  std::unique_ptr<reply::ResponseParser> parser_;  // a template's parser; null with a schema
  bool parse_tool_calls_ = true;
  std::string text_;  // schema: the reply so far
  reply::Json message_;
  ChatReply reply_;
};

// The layout a prompt without one gets (see ReplyParser).
std::shared_ptr<const ReplyLayout> default_layout(const ChatPrompt& prompt);

}  // namespace ogai::chat
