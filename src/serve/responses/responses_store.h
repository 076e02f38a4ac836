// ResponsesStore: the finished /v1/responses answers kept for previous_response_id, in memory,
// least recently used first out. Each entry is the conversation a response ended: the chat
// messages of its input (without its instructions, which OpenAI does not carry over) and its
// reply as an assistant message (text and tool calls), in the chat request's JSON shape, and the
// finished response object (GET /v1/responses/{id}).
//
// Entries are kept as serialized JSON text, so the byte bound is what the store really holds
// (a JSON DOM costs several times its text): bounded by `max_responses` entries and `max_bytes`
// of text (`ogai serve --responses-store-bytes`); an entry larger than `max_bytes` is not kept.
// Each entry has an owner (the API key that created it, as an opaque tag; "" without keys): a
// lookup under another owner finds nothing, exactly as an unknown id. Responses with
// `store: false` are never put. Thread-safe.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "ogai/ogai.h"

namespace ogai::serve {

class ResponsesStore {
 public:
  static constexpr std::size_t kMaxResponses = 1000;
  static constexpr std::size_t kMaxBytes = 64u << 20;

  explicit ResponsesStore(std::size_t max_responses = kMaxResponses, std::size_t max_bytes = kMaxBytes)
      : max_responses_(max_responses), max_bytes_(max_bytes) {}

  // Keeps `conversation` (a JSON array of chat messages) and `response` under `id` for `owner`,
  // evicting the least recently used entries until both bounds hold.
  void put(const std::string& id, const nlohmann::json& conversation, const nlohmann::json& response = nullptr,
           const std::string& owner = "");
  // The conversation under `id` when `owner` created it (now the most recently used), or nullopt.
  std::optional<nlohmann::json> get(const std::string& id, const std::string& owner = "");
  // The response object stored under `id` when `owner` created it, or nullopt.
  std::optional<nlohmann::json> response(const std::string& id, const std::string& owner = "");
  std::size_t size() const;   // entries
  std::size_t bytes() const;  // text held
  std::size_t max_bytes() const { return max_bytes_; }

 private:
  struct Entry {
    std::string id, owner;
    std::string conversation, response;  // serialized; response "" when none
    std::size_t bytes() const { return id.size() + owner.size() + conversation.size() + response.size(); }
  };
  // The entry under `id` for `owner` moved to the front, or nullptr. Call with mutex_ held.
  const Entry* touch(const std::string& id, const std::string& owner);

  std::size_t max_responses_, max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::size_t bytes_ = 0;
};

// The assistant message of a reply, in the chat request's JSON shape.
nlohmann::json reply_message(const ChatReply& reply);

}  // namespace ogai::serve
