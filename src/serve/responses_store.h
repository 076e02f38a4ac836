// ResponsesStore: the finished /v1/responses answers kept for previous_response_id, in memory,
// least recently used first out. Each entry is the conversation a response ended: the chat
// messages of its input (without its instructions, which OpenAI does not carry over) and its
// reply as an assistant message (text and tool calls), in the chat request's JSON shape. Bounded
// by kMaxResponses entries and kMaxBytes of serialized messages; a conversation larger than
// kMaxBytes is not kept. Each entry also holds the finished response object (GET
// /v1/responses/{id}). Responses with `store: false` are never put. Thread-safe.
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

  // Keeps `conversation` (a JSON array of chat messages) under `id`, evicting the least recently used.
  void put(const std::string& id, nlohmann::json conversation, nlohmann::json response = nullptr);
  // The conversation under `id` (now the most recently used), or nullopt.
  std::optional<nlohmann::json> get(const std::string& id);
  // The response object stored under `id` (now the most recently used), or nullopt.
  std::optional<nlohmann::json> response(const std::string& id);
  std::size_t size() const;

 private:
  struct Entry {
    std::string id;
    nlohmann::json conversation, response;
    std::size_t bytes = 0;
  };
  std::size_t max_responses_, max_bytes_;
  mutable std::mutex mutex_;
  std::list<Entry> lru_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  std::size_t bytes_ = 0;
};

// The assistant message of a reply, in the chat request's JSON shape.
nlohmann::json reply_message(const ChatReply& reply);

}  // namespace ogai::serve
