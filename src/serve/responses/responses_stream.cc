#include "serve/responses/responses_stream.h"

#include "serve/openai/api_response.h"

namespace ogai::serve {

using Json = nlohmann::json;

std::string ResponsesEncoder::event(const char* type, Json fields) const {
  fields["type"] = type;
  fields["sequence_number"] = sequence_++;
  return std::string("event: ") + type + "\n" + sse_event(fields);
}

Json ResponsesEncoder::where() const {
  if (open_ == Open::kCall) return {{"item_id", call_item_id(meta_, calls_.size() - 1)}, {"output_index", output_index_}};
  const std::string id = open_ == Open::kReasoning ? reasoning_item_id(meta_) : meta_.item_id;
  return {{"item_id", id}, {"output_index", output_index_}, {"content_index", 0}};
}

std::string ResponsesEncoder::start() const {
  const Json response = responses_json(meta_, nullptr, {});
  std::string out = event("response.created", {{"response", response}});  // one statement per event: numbered in order
  out += event("response.in_progress", {{"response", response}});
  return out;
}

std::string ResponsesEncoder::open(Open kind) const {
  std::string out = close();
  open_ = kind;
  ++output_index_;
  const bool reasoning = kind == Open::kReasoning;
  if (!reasoning) message_seen_ = true;
  Json item = reasoning ? responses_reasoning_item(meta_, "", false) : responses_message_item(meta_, "", false);
  out += event("response.output_item.added", {{"output_index", output_index_}, {"item", std::move(item)}});
  Json added = where();
  added["part"] = reasoning ? Json{{"type", "reasoning_text"}, {"text", ""}}
                            : Json{{"type", "output_text"}, {"text", ""}, {"annotations", Json::array()}};
  out += event("response.content_part.added", std::move(added));
  return out;
}

std::string ResponsesEncoder::open_call(const ToolCallDelta& piece) const {
  std::string out = close();
  calls_.push_back({piece.id, piece.name, ""});
  open_ = Open::kCall;
  ++output_index_;
  out += event("response.output_item.added",
               {{"output_index", output_index_}, {"item", responses_call_item(meta_, calls_.size() - 1, calls_.back(), false)}});
  return out;
}

std::string ResponsesEncoder::close() const {
  std::string out;
  if (open_ == Open::kReasoning || open_ == Open::kMessage) {
    const bool reasoning = open_ == Open::kReasoning;
    const std::string& text = reasoning ? reasoning_ : text_;
    Json done = where(), part_done = where();
    done["text"] = text;
    if (!reasoning) done["logprobs"] = Json::array();
    part_done["part"] = reasoning ? Json{{"type", "reasoning_text"}, {"text", text}}
                                  : Json{{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}};
    out += event(reasoning ? "response.reasoning_text.done" : "response.output_text.done", std::move(done));
    out += event("response.content_part.done", std::move(part_done));
    Json item = reasoning ? responses_reasoning_item(meta_, text, true) : responses_message_item(meta_, text, true);
    out += event("response.output_item.done", {{"output_index", output_index_}, {"item", std::move(item)}});
  } else if (open_ == Open::kCall) {
    Json done = where();
    done["arguments"] = calls_.back().arguments;
    done["name"] = calls_.back().name;
    out += event("response.function_call_arguments.done", std::move(done));
    out += event("response.output_item.done",
                 {{"output_index", output_index_}, {"item", responses_call_item(meta_, calls_.size() - 1, calls_.back(), true)}});
  }
  open_ = Open::kNone;
  return out;
}

std::string ResponsesEncoder::text(std::string_view text, Json) const {
  if (text.empty()) return {};
  std::string out = open_ == Open::kMessage ? std::string() : open(Open::kMessage);
  text_ += text;
  Json fields = where();
  fields["delta"] = std::string(text);
  fields["logprobs"] = Json::array();
  out += event("response.output_text.delta", std::move(fields));
  return out;
}

std::string ResponsesEncoder::delta(const ChatReplyDelta& delta, Json logprobs) const {
  std::string out;
  if (!delta.reasoning_content.empty()) {
    if (open_ != Open::kReasoning) out += open(Open::kReasoning);
    reasoning_ += delta.reasoning_content;
    Json fields = where();
    fields["delta"] = delta.reasoning_content;
    out += event("response.reasoning_text.delta", std::move(fields));
  }
  out += text(delta.content, std::move(logprobs));
  for (const ToolCallDelta& piece : delta.tool_calls) {
    if (static_cast<std::size_t>(piece.index) >= calls_.size()) out += open_call(piece);
    if (piece.arguments.empty()) continue;
    calls_.back().arguments += piece.arguments;
    Json fields = where();
    fields["delta"] = piece.arguments;
    out += event("response.function_call_arguments.delta", std::move(fields));
  }
  return out;
}

std::string ResponsesEncoder::finish(const GenerationResult& result, const ChatReply*) const {
  std::string out = close();
  if (!message_seen_ && calls_.empty()) {
    out += open(Open::kMessage);
    out += close();
  }
  ChatReply streamed{text_, reasoning_, calls_};
  const Json response = responses_json(meta_, &result, streamed);
  if (on_finish_) on_finish_(streamed, response);
  const bool incomplete = response["status"] == "incomplete";
  out += event(incomplete ? "response.incomplete" : "response.completed", {{"response", response}});
  return out;
}

std::string ResponsesEncoder::error(const ApiError& error) const {
  return event("error", {{"code", error.code.empty() ? Json(error.type) : Json(error.code)},
                         {"message", error.message},
                         {"param", error.param.empty() ? Json(nullptr) : Json(error.param)}});
}

}  // namespace ogai::serve
