// ReplyParser: a model's reply text, fed in pieces as it streams, split into content, reasoning
// and tool calls per the ChatPrompt's format (tool_call_format.h): the engine behind
// ogai::parse_chat_reply and ogai::ChatReplyParser (include/ogai/chat.h).
//
// Rules (docs/structured_output.md): a reasoning section opens with the reasoning marker at the
// reply's start (or the prompt left one open) and closes at the close marker; a tool call is the
// format's text around a JSON object {"name", "<arguments key>"} (hermes: each call in
// <tool_call> ... </tool_call>; mistral: [TOOL_CALLS] and a JSON array of calls; llama3_json: the
// reply starting with "{" or <|python_tag|>, calls separated by ";"). A call that does not parse
// stays content, exactly as written. Whitespace next to a reasoning section or a call is dropped;
// other content is kept byte for byte. Not thread-safe.
#pragma once

#include <random>
#include <string>
#include <string_view>

#include "chat/tool_call_format.h"
#include "ogai/chat.h"

namespace ogai::chat {

class ReplyParser {
 public:
  explicit ReplyParser(const ChatPrompt& prompt);
  ChatReplyDelta feed(std::string_view text);
  ChatReplyDelta finish();
  const ChatReply& reply() const { return reply_; }

 private:
  enum class State { kLead, kReasoning, kContent, kCall, kDone };
  // Each step consumes from buf_ and returns false when it needs more text.
  bool step(ChatReplyDelta& out);
  bool lead(ChatReplyDelta& out);
  bool reasoning(ChatReplyDelta& out);
  bool content(ChatReplyDelta& out);
  bool call(ChatReplyDelta& out);
  void emit_content(std::string_view text, ChatReplyDelta& out);
  void emit_reasoning(std::string_view text, ChatReplyDelta& out);
  void emit_call(ToolCall call, ChatReplyDelta& out);
  std::string new_id();

  const ChatPrompt prompt_;
  const ToolCallSyntax& syntax_;
  State state_;
  std::string buf_;          // text not yet decided
  std::string held_ws_;      // content whitespace held until non-whitespace follows
  bool skip_ws_ = false;     // drop whitespace (after a section)
  bool at_end_ = false;
  ChatReply reply_;
  std::mt19937_64 rng_;
};

}  // namespace ogai::chat
