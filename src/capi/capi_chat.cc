// Chat rendering in the C API: a JSON array of messages through the package's chat template.
#include <nlohmann/json.hpp>
#include "capi_json.h"

#include "capi_internal.h"

using ogai::capi::fail;
using ogai::capi::guarded;
using ogai::capi::null_argument;

namespace {

std::string at(std::size_t index, const char* key) {
  return "messages_json[" + std::to_string(index) + "]" + (key ? std::string(".") + key : "");
}

// The string member `key` of messages_json[index] ("" when absent or null and not `required`);
// ogai::Error naming the element otherwise.
std::string member(const nlohmann::json& message, std::size_t index, const char* key, bool required = true) {
  auto it = message.find(key);
  if (!required && (it == message.end() || it->is_null())) return "";
  if (it == message.end() || !it->is_string())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, at(index, key), "expected a string");
  return it->get<std::string>();
}

// An assistant's "tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}].
std::vector<ogai::ToolCall> calls_of(const nlohmann::json& message, std::size_t index) {
  std::vector<ogai::ToolCall> calls;
  auto it = message.find("tool_calls");
  if (it == message.end() || it->is_null()) return calls;
  if (!it->is_array()) throw ogai::Error(ogai::ErrorCode::kInvalidArgument, at(index, "tool_calls"), "expected an array");
  for (std::size_t k = 0; k < it->size(); ++k) {
    const nlohmann::json& c = (*it)[k];
    const std::string where = at(index, "tool_calls") + "[" + std::to_string(k) + "]";
    const nlohmann::json* fn = c.is_object() && c.contains("function") ? &c["function"] : nullptr;
    if (fn == nullptr || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string())
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, where + ".function.name", "expected a string");
    const nlohmann::json& args = fn->value("arguments", nlohmann::json("{}"));
    calls.push_back({c.value("id", std::string()), (*fn)["name"].get<std::string>(),
                     args.is_string() ? args.get<std::string>() : args.dump()});
  }
  return calls;
}

// The media parts' clips, taken in order per kind from what ogai_options_add_media added.
class MediaQueue {
 public:
  explicit MediaQueue(std::vector<ogai::MediaInput>* media) : media_(media) {}

  ogai::MediaInput take(ogai::MediaInput::Kind kind, const std::string& where) {
    const std::size_t k = static_cast<std::size_t>(kind);
    std::size_t seen = 0;
    for (std::size_t i = 0; media_ && i < media_->size(); ++i) {
      if ((*media_)[i].kind != kind) continue;
      if (seen++ < next_[k]) continue;
      ++next_[k];
      ogai::MediaInput m = (*media_)[i];
      m.origin = where;
      return m;
    }
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, where,
                      std::string("a media part without its clip: ") + std::to_string(next_[k]) + " " + name(kind) +
                          (next_[k] == 1 ? "" : "s") + " were added with ogai_options_add_media and this is part " +
                          std::to_string(next_[k] + 1));
  }

  // Every added clip was taken; the options' media are now in the parts.
  void finish() {
    if (!media_) return;
    std::size_t counts[2] = {0, 0};
    for (const ogai::MediaInput& m : *media_) ++counts[static_cast<std::size_t>(m.kind)];
    for (std::size_t k = 0; k < 2; ++k)
      if (counts[k] != next_[k])
        throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "messages_json",
                          std::to_string(counts[k]) + " " + name(static_cast<ogai::MediaInput::Kind>(k)) +
                              "s were added with ogai_options_add_media but the messages have " +
                              std::to_string(next_[k]) + " such parts");
    media_->clear();
  }

 private:
  static const char* name(ogai::MediaInput::Kind kind) { return kind == ogai::MediaInput::Kind::kImage ? "image" : "audio clip"; }
  std::vector<ogai::MediaInput>* media_;
  std::size_t next_[2] = {0, 0};
};

// "content": [{"type": "text", "text"}, {"type": "image"}, {"type": "audio"}, ...].
std::vector<ogai::ContentPart> parts_of(const nlohmann::json& content, std::size_t index, MediaQueue& queue) {
  std::vector<ogai::ContentPart> parts;
  for (std::size_t j = 0; j < content.size(); ++j) {
    const std::string where = at(index, "content") + "[" + std::to_string(j) + "]";
    const nlohmann::json& p = content[j];
    const auto type = p.is_object() ? p.find("type") : p.end();
    if (!p.is_object() || type == p.end() || !type->is_string())
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, where + ".type", "expected a string");
    ogai::ContentPart part;
    const std::string t = type->get<std::string>();
    if (t == "text") {
      const auto text = p.find("text");
      if (text == p.end() || !text->is_string())
        throw ogai::Error(ogai::ErrorCode::kInvalidArgument, where + ".text", "expected a string");
      part.text = text->get<std::string>();
    } else if (t == "image" || t == "audio") {
      part.kind = t == "image" ? ogai::ContentPart::Kind::kImage : ogai::ContentPart::Kind::kAudio;
      part.media = queue.take(t == "image" ? ogai::MediaInput::Kind::kImage : ogai::MediaInput::Kind::kAudio, where);
    } else {
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, where + ".type", "'" + t + "' is not one of text, image, audio");
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

}  // namespace

namespace ogai::capi {

std::vector<ogai::ChatMessage> parse_messages(const char* messages_json, std::vector<ogai::MediaInput>* media) {
  MediaQueue queue(media);
  nlohmann::json doc = parse_json_or_discarded<nlohmann::json>(messages_json);
  if (doc.is_discarded())
    throw ogai::Error(ogai::ErrorCode::kParse, "messages_json", "not valid JSON");
  if (!doc.is_array())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "messages_json",
                      std::string("expected an array of {\"role\", \"content\"} objects, got ") + doc.type_name());
  std::vector<ogai::ChatMessage> messages;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& m = doc[i];
    if (!m.is_object())
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, at(i, nullptr),
                        std::string("expected an object, got ") + m.type_name());
    const std::string role = member(m, i, "role");
    std::vector<ogai::ToolCall> calls = calls_of(m, i);
    // An assistant message that only calls tools may have null content.
    const auto parts = m.find("content");
    const bool has_parts = parts != m.end() && parts->is_array();
    std::string content = has_parts ? "" : member(m, i, "content", /*required=*/calls.empty());
    ogai::ChatMessage message(role, std::move(content), std::move(calls), member(m, i, "tool_call_id", false));
    if (has_parts) message.parts = parts_of(*parts, i, queue);
    message.name = member(m, i, "name", false);
    message.reasoning_content = member(m, i, "reasoning_content", false);
    messages.push_back(std::move(message));
  }
  queue.finish();
  return messages;
}

}  // namespace ogai::capi

extern "C" {

ogai_status ogai_render_chat(const ogai_model* model, const char* messages_json, int add_generation_prompt,
                             char** text) {
  if (model == nullptr) return null_argument("model");
  if (messages_json == nullptr) return null_argument("messages_json");
  if (text == nullptr) return null_argument("text");
  return guarded([&] {
    std::vector<ogai::ChatMessage> messages = ogai::capi::parse_messages(messages_json);
    *text = ogai::capi::copy_string(model->model->render_chat(messages, add_generation_prompt != 0));
    return OGAI_OK;
  });
}

}  // extern "C"
