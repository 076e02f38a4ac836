// Conversation: the one request model every API surface's translator fills (OpenAI chat
// messages, Responses input items, Anthropic Messages blocks; a transcription is one user turn
// with one audio part). A turn is a role and its typed parts in the client's order: text, image,
// audio, tool call, tool result, reasoning. Each part keeps `origin`, the JSON path it came from
// ("messages[1].content[0]", "input[2]"), so any later refusal names the client's field.
//
// The generation path consumes it through to_chat_messages(), the single place where parts
// become ogai::ChatMessage (include/ogai/chat.h): a turn's text parts joined with "\n" into
// `content` (or, when the turn holds media, every text and media part kept in order in
// ChatMessage::parts), reasoning into reasoning_content, tool calls into tool_calls, and each
// tool result into its own "tool" message (in order, splitting the turn around it). Adding a part
// type touches its translators and this lowering, not the routes.
// Plain data and pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ogai/ogai.h"

namespace ogai::serve {

struct Part {
  enum class Kind { kText, kImage, kAudio, kToolCall, kToolResult, kReasoning };
  Kind kind = Kind::kText;
  std::string text;          // kText, kReasoning; kToolResult: the result
  MediaInput media;          // kImage, kAudio (media.origin = `origin`)
  ToolCall call;             // kToolCall
  std::string tool_call_id;  // kToolResult: the call it answers
  std::string origin;        // the JSON path of the part, for errors

  static Part text_part(std::string text, std::string origin);
  static Part media_part(MediaInput media);
  static Part tool_call(ToolCall call, std::string origin);
  static Part tool_result(std::string tool_call_id, std::string text, std::string origin);
  static Part reasoning(std::string text, std::string origin);
};

struct Turn {
  std::string role;    // system, user, assistant, tool (a turn of one tool result)
  std::vector<Part> parts;
  std::string name;    // the participant's / tool's name (optional)
  std::string origin;  // "messages[1]", "system", "input[0]", "previous_response_id"
};

struct Conversation {
  std::vector<Turn> turns;
  std::size_t count(Part::Kind kind) const;  // parts of that kind in all turns
};

// The chat messages Model::prepare_chat takes (the lowering above).
std::vector<ChatMessage> to_chat_messages(const Conversation& conversation);

// The media parts in conversation order (what GenerationOptions::media carries for a package that
// renders them).
std::vector<MediaInput> media_of(const Conversation& conversation);

}  // namespace ogai::serve
