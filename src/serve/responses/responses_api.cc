#include "serve/responses/responses_api.h"

namespace ogai::serve {
namespace {

using Json = nlohmann::json;

std::string hex_of(const ResponsesMeta& meta) { return meta.id.substr(meta.id.find('_') + 1); }

}  // namespace

std::string reasoning_item_id(const ResponsesMeta& meta) { return "rs_" + hex_of(meta); }
std::string call_item_id(const ResponsesMeta& meta, std::size_t i) { return "fc_" + hex_of(meta) + "_" + std::to_string(i); }

Json responses_message_item(const ResponsesMeta& meta, const std::string& text, bool done) {
  Json content = Json::array();
  if (done) content.push_back({{"type", "output_text"}, {"text", text}, {"annotations", Json::array()}});
  return {{"id", meta.item_id}, {"type", "message"}, {"status", done ? "completed" : "in_progress"},
          {"role", "assistant"}, {"content", std::move(content)}};
}

Json responses_reasoning_item(const ResponsesMeta& meta, const std::string& text, bool done) {
  Json content = Json::array();
  if (done) content.push_back({{"type", "reasoning_text"}, {"text", text}});
  return {{"id", reasoning_item_id(meta)}, {"type", "reasoning"}, {"summary", Json::array()},
          {"content", std::move(content)}, {"status", done ? "completed" : "in_progress"}};
}

Json responses_call_item(const ResponsesMeta& meta, std::size_t i, const ToolCall& call, bool done) {
  return {{"id", call_item_id(meta, i)}, {"type", "function_call"}, {"status", done ? "completed" : "in_progress"},
          {"call_id", call.id}, {"name", call.name}, {"arguments", done ? call.arguments : std::string()}};
}

Json responses_output(const ResponsesMeta& meta, const ChatReply& reply) {
  Json output = Json::array();
  if (!reply.reasoning_content.empty()) output.push_back(responses_reasoning_item(meta, reply.reasoning_content, true));
  if (!reply.content.empty() || reply.tool_calls.empty())
    output.push_back(responses_message_item(meta, reply.content, true));
  for (std::size_t i = 0; i < reply.tool_calls.size(); ++i)
    output.push_back(responses_call_item(meta, i, reply.tool_calls[i], true));
  return output;
}

Json responses_json(const ResponsesMeta& meta, const GenerationResult* result, const ChatReply& reply) {
  const bool incomplete = result != nullptr && result->finish_reason == FinishReason::kLength;
  Json j = {{"id", meta.id}, {"object", "response"}, {"created_at", meta.created_at},
            {"status", result == nullptr ? "in_progress" : incomplete ? "incomplete" : "completed"},
            {"error", nullptr}, {"model", meta.model}, {"output", Json::array()},
            {"parallel_tool_calls", true}, {"tool_choice", "auto"}, {"tools", Json::array()},
            {"text", {{"format", {{"type", "text"}}}}}, {"previous_response_id", nullptr}, {"reasoning", nullptr},
            {"store", true}, {"truncation", "disabled"}, {"usage", nullptr}};
  j["incomplete_details"] = incomplete ? Json{{"reason", "max_output_tokens"}} : Json(nullptr);
  for (const auto& [key, value] : meta.echo.items()) j[key] = value;
  if (result == nullptr) return j;
  j["output"] = responses_output(meta, reply);
  const std::size_t in = result->prompt_ids.size(), out = result->ids.size();
  j["usage"] = {{"input_tokens", in}, {"input_tokens_details", {{"cached_tokens", 0}}},
                {"output_tokens", out}, {"output_tokens_details", {{"reasoning_tokens", 0}}},
                {"total_tokens", in + out}};
  return j;
}

}  // namespace ogai::serve
