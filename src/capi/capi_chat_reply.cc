// Chat with tools in the C API: ogai_chat renders the conversation with Model::prepare_chat
// (tools, tool choice, template variables), generates (a forced call's grammar constraining it)
// and parses the reply into content, reasoning and tool calls, as Model.chat() does in Python.
#include <nlohmann/json.hpp>
#include "capi_json.h"

#include "capi_internal.h"

using ogai::capi::guarded;
using ogai::capi::null_argument;

struct ogai_chat_result {
  ogai_result generation;
  ogai::ChatReply reply;
  std::string tool_calls_json;  // OpenAI's array, made once
};

namespace {

using Json = nlohmann::json;

Json parse_json(const char* text, const char* where) {
  Json doc = ogai::capi::parse_json_or_discarded<Json>(text);
  if (doc.is_discarded()) throw ogai::Error(ogai::ErrorCode::kParse, where, "not valid JSON");
  return doc;
}

// OpenAI's tools array: [{"type": "function", "function": {"name", "description", "parameters"}}].
std::vector<ogai::Tool> parse_tools(const char* tools_json) {
  std::vector<ogai::Tool> tools;
  if (tools_json == nullptr) return tools;
  const Json doc = parse_json(tools_json, "tools_json");
  if (!doc.is_array()) throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "tools_json", "expected an array");
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string at = "tools_json[" + std::to_string(i) + "]";
    const Json* fn = doc[i].is_object() && doc[i].contains("function") ? &doc[i]["function"] : nullptr;
    if (fn == nullptr || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string())
      throw ogai::Error(ogai::ErrorCode::kInvalidArgument, at + ".function.name", "expected a string");
    ogai::Tool t;
    t.name = (*fn)["name"].get<std::string>();
    if (fn->contains("description") && (*fn)["description"].is_string())
      t.description = (*fn)["description"].get<std::string>();
    if (fn->contains("parameters")) {
      if (!(*fn)["parameters"].is_object())
        throw ogai::Error(ogai::ErrorCode::kInvalidArgument, at + ".function.parameters",
                          "expected a JSON Schema object");
      t.parameters = (*fn)["parameters"].dump();
    }
    tools.push_back(std::move(t));
  }
  return tools;
}

ogai::ToolChoice parse_choice(const char* tool_choice) {
  using Mode = ogai::ToolChoice::Mode;
  if (tool_choice == nullptr) return {};
  const std::string c = tool_choice;
  if (c == "auto") return {Mode::kAuto, ""};
  if (c == "none") return {Mode::kNone, ""};
  if (c == "required") return {Mode::kRequired, ""};
  return {Mode::kFunction, c};  // a function's name (checked against the tools)
}

std::map<std::string, std::string> parse_kwargs(const char* kwargs_json) {
  std::map<std::string, std::string> out;
  if (kwargs_json == nullptr) return out;
  const Json doc = parse_json(kwargs_json, "template_kwargs_json");
  if (!doc.is_object())
    throw ogai::Error(ogai::ErrorCode::kInvalidArgument, "template_kwargs_json", "expected an object");
  for (const auto& [k, v] : doc.items()) out[k] = v.dump();
  return out;
}

std::string calls_json(const std::vector<ogai::ToolCall>& calls) {
  Json out = Json::array();
  for (const ogai::ToolCall& c : calls)
    out.push_back({{"id", c.id}, {"type", "function"}, {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
  return out.dump();
}

ogai_status text_out(const std::string& s, const char** text, size_t* length) {
  if (text == nullptr) return null_argument("text");
  *text = s.c_str();
  if (length) *length = s.size();
  return OGAI_OK;
}

}  // namespace

extern "C" {

ogai_status ogai_chat(const ogai_model* model, const char* messages_json, const char* tools_json,
                      const char* tool_choice, const char* template_kwargs_json, const ogai_options* options,
                      ogai_token_callback on_token, void* user_data, ogai_chat_result** result) {
  if (model == nullptr) return null_argument("model");
  if (messages_json == nullptr) return null_argument("messages_json");
  if (result == nullptr) return null_argument("result");
  return guarded([&] {
    ogai::ChatOptions chat;
    chat.tools = parse_tools(tools_json);
    chat.tool_choice = parse_choice(tool_choice);
    chat.template_kwargs = parse_kwargs(template_kwargs_json);
    ogai::GenerationOptions o = options ? options->options : ogai::capi::front_end_options();
    const std::vector<ogai::ChatMessage> messages = ogai::capi::parse_messages(messages_json, &o.media);
    const ogai::ChatPrompt prompt = model->model->prepare_chat(messages, chat);
    o.media = prompt.media;  // the parts' clips, in conversation order (parse_messages took them from o.media)
    o.add_special_tokens = false;  // the template writes them
    if (prompt.constraint) {
      if (o.response_format)
        throw ogai::Error(
            ogai::ErrorCode::kInvalidArgument, "response_format",
            "cannot be combined with tool_choice 'required' or a function (its grammar constrains the reply)");
      o.response_format = prompt.constraint;
    }
    auto target = std::make_shared<ogai::capi::CallbackTarget>(on_token, user_data);
    auto out = std::make_unique<ogai_chat_result>();
    out->generation.result = model->model->generate(prompt.text, o, ogai::capi::stream_callback(target));
    out->reply = ogai::parse_chat_reply(prompt, out->generation.result.text);
    out->tool_calls_json = calls_json(out->reply.tool_calls);
    *result = out.release();
    return OGAI_OK;
  });
}

ogai_status ogai_chat_result_content(const ogai_chat_result* result, const char** text, size_t* length) {
  if (result == nullptr) return null_argument("result");
  return text_out(result->reply.content, text, length);
}

ogai_status ogai_chat_result_reasoning(const ogai_chat_result* result, const char** text, size_t* length) {
  if (result == nullptr) return null_argument("result");
  return text_out(result->reply.reasoning_content, text, length);
}

ogai_status ogai_chat_result_tool_calls(const ogai_chat_result* result, const char** json) {
  if (result == nullptr) return null_argument("result");
  return text_out(result->tool_calls_json, json, nullptr);
}

ogai_status ogai_chat_result_generation(const ogai_chat_result* result, const ogai_result** generation) {
  if (result == nullptr) return null_argument("result");
  if (generation == nullptr) return null_argument("generation");
  *generation = &result->generation;
  return OGAI_OK;
}

void ogai_chat_result_free(ogai_chat_result* result) { delete result; }

}  // extern "C"
