#include "serve/responses_api.h"

#include <climits>

#include "serve/json_fields.h"
#include "serve/unknown_fields.h"

namespace ogai::serve {
namespace {

constexpr std::string_view kResponsesFields[] = {
    "model", "input", "instructions", "max_output_tokens", "temperature", "top_p", "stream", "text",
    "top_k", "min_p", "seed", "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs",
    "previous_response_id", "background", "store", "metadata", "user", "service_tier", "reasoning",
    "truncation", "include"};

ChatMessage read_item(const nlohmann::json& item, std::size_t i) {
  const std::string param = element_param("input", i);
  if (!item.is_object())
    throw invalid_request(param, param + ": expected a message object, got " + std::string(json_type_name(item)));
  FieldReader f(item, param + ".");
  const std::string type = f.string("type").value_or("message");
  if (type != "message")
    throw unsupported(f.param("type"), f.param("type") + ": only message items are supported, got \"" + type + "\"");
  auto role = f.string("role");
  if (!role) throw invalid_request(f.param("role"), f.param("role") + ": required");
  if (*role == "developer") role = "system";
  if (*role != "system" && *role != "user" && *role != "assistant")
    throw invalid_request(f.param("role"), f.param("role") + ": '" + *role +
                                               "' is not one of system, developer, user, assistant");
  const nlohmann::json* content = f.get("content");
  if (content == nullptr) throw invalid_request(f.param("content"), f.param("content") + ": required");
  return {*role, content_text(*content, f.param("content"), {"input_text", "output_text", "text"})};
}

void read_input(const FieldReader& f, ApiRequest& r) {
  if (auto instructions = f.string("instructions")) r.messages.push_back({"system", *instructions});
  const nlohmann::json* input = f.get("input");
  if (input == nullptr) throw invalid_request("input", "input: required (a string or an array of messages)");
  if (input->is_string()) return r.messages.push_back({"user", input->get<std::string>()});
  if (!input->is_array() || input->empty())
    throw invalid_request("input", "input: expected a string or a non-empty array of messages, got " +
                                       json_preview(*input));
  for (std::size_t i = 0; i < input->size(); ++i) r.messages.push_back(read_item((*input)[i], i));
}

void refuse_features(const FieldReader& f) {
  const nlohmann::json* tools = f.get("tools");
  if (tools != nullptr && (!tools->is_array() || !tools->empty()))
    throw unsupported("tools", "tools: tools and function calling are not supported on /v1/responses");
  if (f.get("previous_response_id") != nullptr)
    throw unsupported("previous_response_id", "previous_response_id: responses are not stored; send the whole "
                                              "conversation as input");
  if (f.boolean("background").value_or(false))
    throw unsupported("background", "background: responses are answered in the request");
  const nlohmann::json* text = f.get("text");
  if (text == nullptr) return;
  if (!text->is_object()) throw invalid_request("text", "text: expected an object");
  const nlohmann::json* format = FieldReader(*text, "text.").get("format");
  if (format == nullptr) return;
  const std::string type = format->is_object() ? FieldReader(*format, "text.format.").string("type").value_or("") : "";
  if (type != "text")
    throw unsupported("text.format", "text.format: only {\"type\": \"text\"} is supported here (structured output: "
                                     "/v1/chat/completions with response_format)");
}

void read_options(const FieldReader& f, ApiRequest& r) {
  if (auto max = f.integer("max_output_tokens")) {
    if (*max < 1 || *max > INT_MAX)
      throw invalid_request("max_output_tokens", "max_output_tokens: " + std::to_string(*max) + " must be at least 1");
    r.options.max_new_tokens = static_cast<int>(*max);
  }
  SamplingOptions& s = r.options.sampling;
  s.temperature = f.float_number("temperature");
  s.top_p = f.float_number("top_p");
  s.min_p = f.float_number("min_p");
  if (auto k = f.integer("top_k")) {
    if (*k < 0 || *k > INT_MAX) throw invalid_request("top_k", "top_k: " + std::to_string(*k) + " is out of range");
    s.top_k = static_cast<int>(*k);
  }
  if (auto seed = f.integer("seed")) s.seed = static_cast<std::uint64_t>(*seed);
  r.stream = f.boolean("stream").value_or(false);
}

nlohmann::json echoed(const nlohmann::json& body, const char* name) {
  auto it = body.find(name);
  return it == body.end() ? nlohmann::json(nullptr) : *it;
}

nlohmann::json echo_of(const nlohmann::json& body) {
  nlohmann::json metadata = echoed(body, "metadata");
  return {{"instructions", echoed(body, "instructions")},
          {"max_output_tokens", echoed(body, "max_output_tokens")},
          {"temperature", echoed(body, "temperature")},
          {"top_p", echoed(body, "top_p")},
          {"metadata", metadata.is_object() ? metadata : nlohmann::json::object()},
          {"user", echoed(body, "user")}};
}

}  // namespace

ResponsesRequest parse_responses_request(const std::string& body) {
  nlohmann::json j = parse_json_object(body);
  FieldReader f(j);
  ResponsesRequest out;
  ApiRequest& r = out.request;
  r.endpoint = Endpoint::kChat;
  r.unknown_fields = unknown_fields(j, kResponsesFields);
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = *model;
  read_input(f, r);
  refuse_features(f);
  read_options(f, r);
  out.echo = echo_of(j);
  return out;
}

nlohmann::json responses_message_item(const ResponsesMeta& meta, const std::string& text, bool done) {
  nlohmann::json content = nlohmann::json::array();
  if (done) content.push_back({{"type", "output_text"}, {"text", text}, {"annotations", nlohmann::json::array()}});
  return {{"id", meta.item_id}, {"type", "message"}, {"status", done ? "completed" : "in_progress"},
          {"role", "assistant"}, {"content", std::move(content)}};
}

nlohmann::json responses_json(const ResponsesMeta& meta, const GenerationResult* result, const std::string& text) {
  const bool incomplete = result != nullptr && result->finish_reason == FinishReason::kLength;
  nlohmann::json j = {{"id", meta.id}, {"object", "response"}, {"created_at", meta.created_at},
                      {"status", result == nullptr ? "in_progress" : incomplete ? "incomplete" : "completed"},
                      {"error", nullptr}, {"model", meta.model}, {"output", nlohmann::json::array()},
                      {"parallel_tool_calls", false}, {"tool_choice", "none"}, {"tools", nlohmann::json::array()},
                      {"text", {{"format", {{"type", "text"}}}}}, {"previous_response_id", nullptr},
                      {"store", false}, {"truncation", "disabled"}, {"usage", nullptr}};
  j["incomplete_details"] = incomplete ? nlohmann::json{{"reason", "max_output_tokens"}} : nlohmann::json(nullptr);
  for (const auto& [key, value] : meta.echo.items()) j[key] = value;
  if (result == nullptr) return j;
  j["output"].push_back(responses_message_item(meta, text, true));
  const std::size_t in = result->prompt_ids.size(), out = result->ids.size();
  j["usage"] = {{"input_tokens", in}, {"input_tokens_details", {{"cached_tokens", 0}}},
                {"output_tokens", out}, {"output_tokens_details", {{"reasoning_tokens", 0}}},
                {"total_tokens", in + out}};
  return j;
}

}  // namespace ogai::serve
