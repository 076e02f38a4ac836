// Chat rendering in the C API: a JSON array of messages through the package's chat template.
#include <nlohmann/json.hpp>

#include "capi_internal.h"

using ogai::capi::fail;
using ogai::capi::guarded;
using ogai::capi::null_argument;

namespace {

// The string member `key` of messages_json[index]; ogai::Error naming the element otherwise.
std::string member(const nlohmann::json& message, std::size_t index, const char* key) {
  auto it = message.find(key);
  if (it == message.end() || !it->is_string())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "messages_json[" + std::to_string(index) + "]." + key,
                      "expected a string");
  return it->get<std::string>();
}

// `[{"role": "...", "content": "..."}, ...]` as ChatMessages; ogai::Error naming what is wrong.
std::vector<ogai::ChatMessage> parse_messages(const char* messages_json) {
  nlohmann::json doc = nlohmann::json::parse(messages_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw ogai::Error(ogai::ErrorCode::kParse, "messages_json", "not valid JSON");
  if (!doc.is_array())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "messages_json",
                      std::string("expected an array of {\"role\", \"content\"} objects, got ") + doc.type_name());
  std::vector<ogai::ChatMessage> messages;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    if (!doc[i].is_object())
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "messages_json[" + std::to_string(i) + "]",
                        std::string("expected an object, got ") + doc[i].type_name());
    messages.push_back({member(doc[i], i, "role"), member(doc[i], i, "content")});
  }
  return messages;
}

}  // namespace

extern "C" {

ogai_status ogai_render_chat(const ogai_model* model, const char* messages_json, int add_generation_prompt,
                             char** text) {
  if (model == nullptr) return null_argument("model");
  if (messages_json == nullptr) return null_argument("messages_json");
  if (text == nullptr) return null_argument("text");
  return guarded([&] {
    std::vector<ogai::ChatMessage> messages = parse_messages(messages_json);
    *text = ogai::capi::copy_string(model->model->render_chat(messages, add_generation_prompt != 0));
    return OGAI_OK;
  });
}

}  // extern "C"
