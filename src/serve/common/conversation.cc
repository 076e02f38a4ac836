#include "serve/common/conversation.h"

#include <utility>

namespace ogai::serve {
namespace {

bool is_media(const Part& p) { return p.kind == Part::Kind::kImage || p.kind == Part::Kind::kAudio; }

ContentPart content_part(const Part& p) {
  ContentPart c;
  c.kind = p.kind == Part::Kind::kImage ? ContentPart::Kind::kImage
         : p.kind == Part::Kind::kAudio ? ContentPart::Kind::kAudio
                                        : ContentPart::Kind::kText;
  if (is_media(p)) c.media = p.media;
  else c.text = p.text;
  return c;
}

// The message being built from a run of a turn's parts (up to a tool result or the turn's end).
class MessageBuilder {
 public:
  explicit MessageBuilder(const Turn& turn) : turn_(turn) { reset(); }

  void add(const Part& p) {
    used_ = true;
    switch (p.kind) {
      case Part::Kind::kText: texts_.push_back(p); break;
      case Part::Kind::kImage:
      case Part::Kind::kAudio:
        texts_.push_back(p);
        has_media_ = true;
        break;
      case Part::Kind::kToolCall: message_.tool_calls.push_back(p.call); break;
      case Part::Kind::kReasoning: message_.reasoning_content += p.text; break;
      case Part::Kind::kToolResult: break;  // split off by the caller
    }
  }
  // Appends the message when it has anything (or when `always`: a turn with no parts at all).
  void flush(std::vector<ChatMessage>& out, bool always) {
    if (!used_ && !always) return;
    if (has_media_) {
      for (const Part& p : texts_) message_.parts.push_back(content_part(p));
    } else {
      for (std::size_t i = 0; i < texts_.size(); ++i) message_.content += (i ? "\n" : "") + texts_[i].text;
    }
    out.push_back(std::move(message_));
    reset();
  }

 private:
  void reset() {
    message_ = ChatMessage{turn_.role, ""};
    message_.name = turn_.name;
    texts_.clear();
    has_media_ = false;
    used_ = false;
  }
  const Turn& turn_;
  ChatMessage message_;
  std::vector<Part> texts_;  // text and media parts, in order
  bool has_media_ = false;
  bool used_ = false;
};

void lower_turn(const Turn& turn, std::vector<ChatMessage>& out) {
  MessageBuilder message(turn);
  bool wrote = false;
  for (const Part& p : turn.parts) {
    if (p.kind != Part::Kind::kToolResult) {
      message.add(p);
      continue;
    }
    message.flush(out, false);
    ChatMessage tool{"tool", p.text};
    tool.tool_call_id = p.tool_call_id;
    if (turn.role == "tool") tool.name = turn.name;
    out.push_back(std::move(tool));
    wrote = true;
  }
  message.flush(out, !wrote);
}

}  // namespace

Part Part::text_part(std::string text, std::string origin) {
  Part p;
  p.kind = Kind::kText;
  p.text = std::move(text);
  p.origin = std::move(origin);
  return p;
}

Part Part::media_part(MediaInput media) {
  Part p;
  p.kind = media.kind == MediaInput::Kind::kImage ? Kind::kImage : Kind::kAudio;
  p.origin = media.origin;
  p.media = std::move(media);
  return p;
}

Part Part::tool_call(ToolCall call, std::string origin) {
  Part p;
  p.kind = Kind::kToolCall;
  p.call = std::move(call);
  p.origin = std::move(origin);
  return p;
}

Part Part::tool_result(std::string tool_call_id, std::string text, std::string origin) {
  Part p;
  p.kind = Kind::kToolResult;
  p.tool_call_id = std::move(tool_call_id);
  p.text = std::move(text);
  p.origin = std::move(origin);
  return p;
}

Part Part::reasoning(std::string text, std::string origin) {
  Part p;
  p.kind = Kind::kReasoning;
  p.text = std::move(text);
  p.origin = std::move(origin);
  return p;
}

std::size_t Conversation::count(Part::Kind kind) const {
  std::size_t n = 0;
  for (const Turn& t : turns)
    for (const Part& p : t.parts) n += p.kind == kind ? 1 : 0;
  return n;
}

std::vector<ChatMessage> to_chat_messages(const Conversation& conversation) {
  std::vector<ChatMessage> out;
  for (const Turn& turn : conversation.turns) lower_turn(turn, out);
  return out;
}

std::vector<MediaInput> media_of(const Conversation& conversation) {
  std::vector<MediaInput> media;
  for (const Turn& t : conversation.turns)
    for (const Part& p : t.parts)
      if (is_media(p)) media.push_back(p.media);
  return media;
}

}  // namespace ogai::serve
