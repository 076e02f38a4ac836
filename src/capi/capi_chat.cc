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

}  // namespace

namespace ogai::capi {

std::vector<ogai::ChatMessage> parse_messages(const char* messages_json) {
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
    std::string content = member(m, i, "content", /*required=*/calls.empty());
    ogai::ChatMessage message(role, std::move(content), std::move(calls), member(m, i, "tool_call_id", false));
    message.name = member(m, i, "name", false);
    message.reasoning_content = member(m, i, "reasoning_content", false);
    messages.push_back(std::move(message));
  }
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
