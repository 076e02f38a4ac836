#include "serve/anthropic/messages_stream.h"

#include "serve/openai/api_response.h"

namespace ogai::serve {
namespace {

std::string event(const char* type, nlohmann::json fields) {
  fields["type"] = type;
  return std::string("event: ") + type + "\n" + sse_event(fields);
}

}  // namespace

std::string MessagesEncoder::start() const {
  return event("message_start", {{"message", message_start_json(meta_)}}) + event("ping", nlohmann::json::object());
}

std::string MessagesEncoder::close() const {
  if (open_ == Block::kNone) return {};
  open_ = Block::kNone;
  return event("content_block_stop", {{"index", index_}});
}

std::string MessagesEncoder::open(Block kind, const ToolCallDelta* tool) const {
  if (open_ == kind && tool == nullptr) return {};
  std::string out = close();
  nlohmann::json block;
  if (kind == Block::kThinking) block = {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}};
  else if (kind == Block::kText) block = {{"type", "text"}, {"text", ""}};
  else block = {{"type", "tool_use"}, {"id", tool_use_id(tool->id)}, {"name", tool->name},
                {"input", nlohmann::json::object()}};
  open_ = kind;
  out += event("content_block_start", {{"index", ++index_}, {"content_block", std::move(block)}});
  return out;
}

std::string MessagesEncoder::block_delta(nlohmann::json delta) const {
  return event("content_block_delta", {{"index", index_}, {"delta", std::move(delta)}});
}

std::string MessagesEncoder::text(std::string_view text, nlohmann::json) const {
  if (text.empty()) return {};
  std::string out = open(Block::kText);  // first: it numbers the block the delta names
  return out + block_delta({{"type", "text_delta"}, {"text", std::string(text)}});
}

std::string MessagesEncoder::delta(const ChatReplyDelta& delta, nlohmann::json) const {
  std::string out;
  if (!delta.reasoning_content.empty()) {
    out += open(Block::kThinking);
    out += block_delta({{"type", "thinking_delta"}, {"thinking", delta.reasoning_content}});
  }
  out += text(delta.content);
  for (const ToolCallDelta& d : delta.tool_calls) {
    if (!d.id.empty()) {
      out += open(Block::kToolUse, &d);
      tool_use_ = true;
    }
    if (!d.arguments.empty()) out += block_delta({{"type", "input_json_delta"}, {"partial_json", d.arguments}});
  }
  return out;
}

std::string MessagesEncoder::finish(const GenerationResult& result, const ChatReply*) const {
  const std::optional<std::string> stop = stop_of_(result);
  std::string out = close();
  out += event("message_delta",
               {{"delta", {{"stop_reason", messages_stop_reason(result.finish_reason, stop, tool_use_)},
                           {"stop_sequence", stop ? nlohmann::json(*stop) : nlohmann::json(nullptr)}}},
                {"usage", {{"output_tokens", result.ids.size()}}}});
  return out + event("message_stop", nlohmann::json::object());
}

std::string MessagesEncoder::error(const ApiError& error) const {
  return event("error", {{"error", messages_error_json(error)["error"]}});
}

}  // namespace ogai::serve
