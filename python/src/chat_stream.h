// ChatStream: Model.chat(stream=True) when tools are offered (ogai.ChatStream). A TextStream's
// pieces go through a ChatReplyParser (include/ogai/chat.h), so the caller reads the reply as
// OpenAI streams it: content and reasoning as generated, each tool call's id and name first,
// then its argument text. Iterating yields the non-empty deltas; `result` is the ChatResult once
// the generation ended and every delta was read (or the stream was closed).
//
// Thread safety: as TextStream's (next() from one thread at a time, close() from any).
#pragma once

#include <memory>
#include <optional>

#include "chat_result.h"
#include "ogai/ogai.h"
#include "text_stream.h"

namespace ogai::python {

class ChatStream {
 public:
  ChatStream(std::unique_ptr<TextStream> text, ChatPrompt prompt);

  // The next non-empty delta; nullopt at the end (after what finish() released). Blocks: call it
  // without the GIL. Rethrows the generation's error, once.
  std::optional<ChatReplyDelta> next();
  void close() { text_->close(); }
  // The whole reply once the generation ended and every delta was read, else null.
  const ChatResult* result() const { return result_ ? &*result_ : nullptr; }

 private:
  std::unique_ptr<TextStream> text_;
  const ChatPrompt prompt_;  // before the parser, which reads it
  ChatReplyParser parser_;
  bool finished_ = false;
  std::optional<ChatResult> result_;
};

}  // namespace ogai::python
