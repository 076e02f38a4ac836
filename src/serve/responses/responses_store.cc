#include "serve/responses/responses_store.h"

namespace ogai::serve {

namespace {

std::string text_of(const nlohmann::json& j) {
  if (j.is_null()) return {};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

void ResponsesStore::put(const std::string& id, const nlohmann::json& conversation, const nlohmann::json& response,
                         const std::string& owner) {
  if (max_responses_ == 0) return;
  Entry entry{id, owner, text_of(conversation), text_of(response)};
  const std::size_t bytes = entry.bytes();
  if (bytes > max_bytes_) return;
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(id); it != index_.end()) {
    bytes_ -= it->second->bytes();
    lru_.erase(it->second);
    index_.erase(it);
  }
  lru_.push_front(std::move(entry));
  index_[id] = lru_.begin();
  bytes_ += bytes;
  while (lru_.size() > max_responses_ || bytes_ > max_bytes_) {
    bytes_ -= lru_.back().bytes();
    index_.erase(lru_.back().id);
    lru_.pop_back();
  }
}

const ResponsesStore::Entry* ResponsesStore::touch(const std::string& id, const std::string& owner) {
  auto it = index_.find(id);
  if (it == index_.end() || it->second->owner != owner) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return &*it->second;
}

std::optional<nlohmann::json> ResponsesStore::get(const std::string& id, const std::string& owner) {
  std::string text;
  {
    std::lock_guard lock(mutex_);
    const Entry* e = touch(id, owner);
    if (!e) return std::nullopt;
    text = e->conversation;
  }
  return nlohmann::json::parse(text);  // parsed outside the lock: it is our own serialization
}

std::optional<nlohmann::json> ResponsesStore::response(const std::string& id, const std::string& owner) {
  std::string text;
  {
    std::lock_guard lock(mutex_);
    const Entry* e = touch(id, owner);
    if (!e || e->response.empty()) return std::nullopt;
    text = e->response;
  }
  return nlohmann::json::parse(text);
}

std::size_t ResponsesStore::size() const {
  std::lock_guard lock(mutex_);
  return lru_.size();
}

std::size_t ResponsesStore::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

nlohmann::json reply_message(const ChatReply& reply) {
  nlohmann::json message = {{"role", "assistant"}, {"content", reply.content}};
  for (const ToolCall& call : reply.tool_calls)
    message["tool_calls"].push_back({{"id", call.id}, {"type", "function"},
                                     {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
  return message;
}

}  // namespace ogai::serve
