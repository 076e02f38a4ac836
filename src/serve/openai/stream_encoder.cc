#include "serve/openai/stream_encoder.h"

#include "serve/common/chat_reply_json.h"

namespace ogai::serve {

std::string StreamEncoder::event(nlohmann::json chunk) const {
  chunk["choices"][0]["index"] = index_;
  return sse_event(chunk);
}

std::string StreamEncoder::start() const {
  if (meta_.endpoint != Endpoint::kChat) return {};
  return event(chunk_json(meta_, "", nullptr, /*role=*/true, include_usage_));
}

std::string StreamEncoder::text(std::string_view text, nlohmann::json logprobs) const {
  if (text.empty()) return {};
  return event(chunk_json(meta_, text, nullptr, /*role=*/false, include_usage_, std::move(logprobs)));
}

std::string StreamEncoder::delta(const ChatReplyDelta& delta, nlohmann::json logprobs) const {
  std::string out;
  for (auto& chunk : delta_chunks(meta_, delta, include_usage_, std::move(logprobs))) out += event(std::move(chunk));
  return out;
}

std::string StreamEncoder::finish(const GenerationResult& result, const ChatReply* reply) const {
  return event(chunk_json(meta_, "", chat_finish_reason(result.finish_reason, reply), /*role=*/false, include_usage_));
}

std::string StreamEncoder::end(std::size_t prompt_tokens, std::size_t completion_tokens) const {
  std::string out;
  if (include_usage_) out += sse_event(usage_chunk_json(meta_, prompt_tokens, completion_tokens));
  return out + sse_done();
}

std::string StreamEncoder::error(const ApiError& error) const { return sse_event(error_json(error)); }

}  // namespace ogai::serve
