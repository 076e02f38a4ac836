#include "serve/openai/chat_messages.h"

#include "base/cancel.h"
#include "serve/common/api_error.h"
#include "serve/common/base64.h"

namespace ogai::serve {
namespace {

// An assistant's tool_calls: [{"id", "type": "function", "function": {"name", "arguments"}}].
void read_tool_calls(const RequestJson& calls, const std::string& param, Turn& turn) {
  if (!calls.is_array()) throw invalid_request(param, param + ": expected an array of tool calls, got " + json_preview(calls));
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const std::string call_param = element_param(param, i);
    if (!calls[i].is_object()) throw invalid_request(call_param, call_param + ": expected a tool call object");
    FieldReader f(calls[i], call_param + ".");
    const RequestJson* fn = f.get("function");
    if (fn == nullptr || !fn->is_object())
      throw invalid_request(f.param("function"), f.param("function") + ": required (an object with name and arguments)");
    FieldReader ff(*fn, call_param + ".function.");
    auto name = ff.string("name");
    if (!name) throw invalid_request(ff.param("name"), ff.param("name") + ": required");
    turn.parts.push_back(
        Part::tool_call({f.string("id").value_or(""), *name, ff.string("arguments").value_or("{}")}, call_param));
  }
}

// The object under `key` of a part (image_url, input_audio).
const RequestJson& part_object(const FieldReader& f, const char* key) {
  const RequestJson* v = f.get(key);
  if (v == nullptr || !v->is_object())
    throw invalid_request(f.param(key), f.param(key) + ": required (an object)");
  return *v;
}

Part read_image(const FieldReader& f, const std::string& at, MediaReader& media) {
  FieldReader image(part_object(f, "image_url"), f.param("image_url") + ".");
  auto url = image.string("url");
  if (!url) throw invalid_request(image.param("url"), image.param("url") + ": required (a data URL)");
  image.string("detail");  // type-checked; the package's processor decides the resolution
  return Part::media_part(media.data_url(MediaInput::Kind::kImage, *url, image.param("url"), at));
}

Part read_audio(const FieldReader& f, const std::string& at, MediaReader& media) {
  FieldReader audio(part_object(f, "input_audio"), f.param("input_audio") + ".");
  auto data = audio.string("data");
  if (!data) throw invalid_request(audio.param("data"), audio.param("data") + ": required (base64 audio)");
  auto format = audio.string("format");
  if (!format) throw invalid_request(audio.param("format"), audio.param("format") + ": required (wav, mp3, flac, ogg)");
  const std::string mime = audio_mime(*format);
  if (mime.empty())
    throw invalid_request(audio.param("format"), audio.param("format") + ": " + quote_value(*format) +
                                                     " is not one of wav, mp3, flac, ogg");
  return Part::media_part(media.base64(MediaInput::Kind::kAudio, *data, mime, audio.param("data"), at));
}

void read_content_part(const RequestJson& part, const std::string& at, bool media_allowed, MediaReader& media,
                       Turn& turn) {
  if (!part.is_object()) throw invalid_request(at, at + ": expected a content part object");
  FieldReader f(part, at + ".");
  const std::string type = f.string("type").value_or("");
  if (type == "text") {
    auto text = f.string("text");
    if (!text) throw invalid_request(f.param("text"), f.param("text") + ": required in a text part");
    return turn.parts.push_back(Part::text_part(*text, at));
  }
  const bool image = type == "image_url", audio = type == "input_audio";
  if ((image || audio) && !media_allowed)
    throw invalid_request(f.param("type"), f.param("type") + ": " + quote_value(type) +
                                               " parts are only taken in user messages");
  if (image) return turn.parts.push_back(read_image(f, at, media));
  if (audio) return turn.parts.push_back(read_audio(f, at, media));
  throw unsupported(f.param("type"), f.param("type") + ": content parts are \"text\", \"image_url\" or \"input_audio\", got " +
                                         (f.get("type") ? quote_value(type) : std::string("none")));
}

void read_content(const RequestJson& content, const std::string& param, const std::string& role, MediaReader& media,
                  Turn& turn) {
  if (content.is_string()) return turn.parts.push_back(Part::text_part(content.get<std::string>(), param));
  if (!content.is_array())
    throw invalid_request(param, param + ": expected a string or an array of content parts, got " +
                                     std::string(json_type_name(content)));
  for (std::size_t i = 0; i < content.size(); ++i)
    read_content_part(content[i], element_param(param, i), role == "user", media, turn);
}

std::string checked_role(const FieldReader& f, const std::string& param) {
  auto role = f.string("role");
  if (!role) throw invalid_request(f.param("role"), f.param("role") + ": required");
  if (*role == "function" || f.get("function_call"))
    throw unsupported(param, param + ": legacy function messages are not supported; use tool_calls and role \"tool\"");
  if (*role == "developer") return "system";
  if (*role != "system" && *role != "user" && *role != "assistant" && *role != "tool")
    throw invalid_request(f.param("role"), f.param("role") + ": '" + *role +
                                               "' is not one of system, developer, user, assistant, tool");
  return *role;
}

// A tool message: one tool-result part (its content's text parts joined).
void read_tool_message(const FieldReader& f, const std::string& param, Turn& turn) {
  auto id = f.string("tool_call_id");
  if (!id) throw invalid_request(f.param("tool_call_id"), f.param("tool_call_id") + ": required in a tool message");
  const RequestJson* content = f.get("content");
  if (content == nullptr) throw invalid_request(f.param("content"), f.param("content") + ": required");
  turn.parts.push_back(Part::tool_result(*id, content_text(*content, f.param("content"), {"text"}), param));
}

Turn read_message(const RequestJson& m, const std::string& param, MediaReader& media) {
  if (!m.is_object())
    throw invalid_request(param, param + ": expected a message object, got " + std::string(json_type_name(m)));
  FieldReader f(m, param + ".");
  Turn turn{checked_role(f, param), {}, f.string("name").value_or(""), param};
  if (auto reasoning = f.string("reasoning_content"); reasoning && !reasoning->empty())
    turn.parts.push_back(Part::reasoning(*reasoning, f.param("reasoning_content")));
  if (const RequestJson* calls = f.get("tool_calls")) {
    if (turn.role != "assistant")
      throw invalid_request(f.param("tool_calls"), f.param("tool_calls") + ": only assistant messages have tool calls");
    read_tool_calls(*calls, f.param("tool_calls"), turn);
  }
  if (turn.role == "tool") {
    read_tool_message(f, param, turn);
    return turn;
  }
  const RequestJson* content = f.get("content");
  if (content == nullptr) {
    if (turn.role != "assistant") throw invalid_request(f.param("content"), f.param("content") + ": required");
    return turn;
  }
  read_content(*content, f.param("content"), turn.role, media, turn);
  return turn;
}

nlohmann::json part_json(const ContentPart& c) {
  if (c.kind == ContentPart::Kind::kText) return {{"type", "text"}, {"text", c.text}};
  const MediaInput& m = c.media;
  if (c.kind == ContentPart::Kind::kImage)
    return {{"type", "image_url"}, {"image_url", {{"url", "data:" + m.mime + ";base64," + encode_base64(m.bytes)}}}};
  const std::string format = m.mime == "audio/mpeg" ? "mp3" : m.mime.substr(m.mime.find('/') + 1);
  return {{"type", "input_audio"}, {"input_audio", {{"data", encode_base64(m.bytes)}, {"format", format}}}};
}

// One lowered chat message as chat JSON (media parts in their chat shapes).
nlohmann::json message_json(const ChatMessage& m) {
  nlohmann::json j = {{"role", m.role}, {"content", m.content}};
  if (!m.parts.empty()) {
    j["content"] = nlohmann::json::array();
    for (const ContentPart& c : m.parts) j["content"].push_back(part_json(c));
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  if (!m.reasoning_content.empty()) j["reasoning_content"] = m.reasoning_content;
  for (const ToolCall& c : m.tool_calls)
    j["tool_calls"].push_back(
        {{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  return j;
}

}  // namespace

Conversation read_chat_messages(const RequestJson& messages, MediaReader& media, const std::string& param,
                                const std::string& origin_all) {
  Conversation c;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    check_cancelled("the request's translation");  // base/cancel.h
    c.turns.push_back(read_message(messages[i], element_param(param, i), media));
    if (!origin_all.empty()) c.turns.back().origin = origin_all;
  }
  return c;
}

nlohmann::json chat_messages_json(const Conversation& conversation) {
  nlohmann::json out = nlohmann::json::array();
  for (const ChatMessage& m : to_chat_messages(conversation)) out.push_back(message_json(m));
  return out;
}

}  // namespace ogai::serve
