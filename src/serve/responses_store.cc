#include "serve/responses_store.h"

namespace ogai::serve {

namespace {

std::size_t bytes_of(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).size();
}

}  // namespace

void ResponsesStore::put(const std::string& id, nlohmann::json conversation, nlohmann::json response) {
  const std::size_t bytes = bytes_of(conversation) + bytes_of(response);
  if (bytes > max_bytes_ || max_responses_ == 0) return;
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(id); it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front({id, std::move(conversation), std::move(response), bytes});
  index_[id] = lru_.begin();
  bytes_ += bytes;
  while (lru_.size() > max_responses_ || bytes_ > max_bytes_) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().id);
    lru_.pop_back();
  }
}

std::optional<nlohmann::json> ResponsesStore::get(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->conversation;
}

std::optional<nlohmann::json> ResponsesStore::response(const std::string& id) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(id);
  if (it == index_.end() || it->second->response.is_null()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->response;
}

std::size_t ResponsesStore::size() const {
  std::lock_guard lock(mutex_);
  return lru_.size();
}

nlohmann::json reply_message(const ChatReply& reply) {
  nlohmann::json message = {{"role", "assistant"}, {"content", reply.content}};
  for (const ToolCall& call : reply.tool_calls)
    message["tool_calls"].push_back({{"id", call.id}, {"type", "function"},
                                     {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
  return message;
}

}  // namespace ogai::serve
