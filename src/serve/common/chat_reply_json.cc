#include "serve/common/chat_reply_json.h"

namespace ogai::serve {
namespace {

nlohmann::json call_json(const ToolCall& call) {
  return {{"id", call.id}, {"type", "function"}, {"function", {{"name", call.name}, {"arguments", call.arguments}}}};
}

nlohmann::json delta_call_json(const ToolCallDelta& d) {
  nlohmann::json j = {{"index", d.index}};
  if (!d.id.empty()) {
    j["id"] = d.id;
    j["type"] = "function";
    j["function"] = {{"name", d.name}, {"arguments", d.arguments}};
  } else {
    j["function"] = {{"arguments", d.arguments}};
  }
  return j;
}

nlohmann::json chunk(const ResponseMeta& meta, nlohmann::json delta, bool usage_null) {
  nlohmann::json j = chunk_json(meta, "", nullptr, /*role=*/false, usage_null);
  j["choices"][0]["delta"] = std::move(delta);
  return j;
}

}  // namespace

void set_reply_message(nlohmann::json& message, const ChatReply& reply) {
  const bool calls = !reply.tool_calls.empty();
  message["content"] = calls && reply.content.empty() ? nlohmann::json(nullptr) : nlohmann::json(reply.content);
  if (!reply.reasoning_content.empty()) message["reasoning_content"] = reply.reasoning_content;
  if (!calls) return;
  nlohmann::json list = nlohmann::json::array();
  for (const ToolCall& c : reply.tool_calls) list.push_back(call_json(c));
  message["tool_calls"] = std::move(list);
}

const char* chat_finish_reason(FinishReason reason, const ChatReply* reply) {
  const bool ended = reason == FinishReason::kEos || reason == FinishReason::kStop;
  if (ended && reply != nullptr && !reply->tool_calls.empty()) return "tool_calls";
  return openai_finish_reason(reason);
}

std::vector<nlohmann::json> delta_chunks(const ResponseMeta& meta, const ChatReplyDelta& delta, bool usage_null,
                                         nlohmann::json logprobs) {
  std::vector<nlohmann::json> out;
  if (!delta.reasoning_content.empty()) out.push_back(chunk(meta, {{"reasoning_content", delta.reasoning_content}}, usage_null));
  if (!delta.content.empty()) out.push_back(chunk(meta, {{"content", delta.content}}, usage_null));
  for (const ToolCallDelta& d : delta.tool_calls)
    out.push_back(chunk(meta, {{"tool_calls", nlohmann::json::array({delta_call_json(d)})}}, usage_null));
  if (out.empty() && !logprobs.is_null()) out.push_back(chunk(meta, {{"content", ""}}, usage_null));
  if (!out.empty()) out.front()["choices"][0]["logprobs"] = std::move(logprobs);
  return out;
}

}  // namespace ogai::serve
