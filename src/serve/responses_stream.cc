#include "serve/responses_stream.h"

#include "serve/api_response.h"

namespace ogai::serve {

std::string ResponsesEncoder::event(const char* type, nlohmann::json fields) const {
  fields["type"] = type;
  fields["sequence_number"] = sequence_++;
  return std::string("event: ") + type + "\n" + sse_event(fields);
}

nlohmann::json ResponsesEncoder::part(bool done) const {
  return {{"type", "output_text"}, {"text", done ? text_ : std::string()}, {"annotations", nlohmann::json::array()}};
}

std::string ResponsesEncoder::start() const {
  const nlohmann::json response = responses_json(meta_, nullptr, "");
  const nlohmann::json where = {{"item_id", meta_.item_id}, {"output_index", 0}, {"content_index", 0}};
  nlohmann::json part_added = where;
  part_added["part"] = part(false);
  // One statement per event: they are numbered in the order they are made.
  std::string out = event("response.created", {{"response", response}});
  out += event("response.in_progress", {{"response", response}});
  out += event("response.output_item.added", {{"output_index", 0}, {"item", responses_message_item(meta_, "", false)}});
  out += event("response.content_part.added", std::move(part_added));
  return out;
}

std::string ResponsesEncoder::text(std::string_view text, nlohmann::json) const {
  if (text.empty()) return {};
  text_ += text;
  return event("response.output_text.delta", {{"item_id", meta_.item_id}, {"output_index", 0}, {"content_index", 0},
                                              {"delta", std::string(text)}, {"logprobs", nlohmann::json::array()}});
}

std::string ResponsesEncoder::finish(const GenerationResult& result, const ChatReply*) const {
  const nlohmann::json where = {{"item_id", meta_.item_id}, {"output_index", 0}, {"content_index", 0}};
  nlohmann::json text_done = where, part_done = where;
  text_done["text"] = text_;
  text_done["logprobs"] = nlohmann::json::array();
  part_done["part"] = part(true);
  const nlohmann::json response = responses_json(meta_, &result, text_);
  const bool incomplete = response["status"] == "incomplete";
  std::string out = event("response.output_text.done", std::move(text_done));
  out += event("response.content_part.done", std::move(part_done));
  out += event("response.output_item.done", {{"output_index", 0}, {"item", responses_message_item(meta_, text_, true)}});
  out += event(incomplete ? "response.incomplete" : "response.completed", {{"response", response}});
  return out;
}

std::string ResponsesEncoder::error(const ApiError& error) const {
  return event("error", {{"code", error.code.empty() ? nlohmann::json(error.type) : nlohmann::json(error.code)},
                         {"message", error.message},
                         {"param", error.param.empty() ? nlohmann::json(nullptr) : nlohmann::json(error.param)}});
}

}  // namespace ogai::serve
