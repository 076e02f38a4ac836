// SharedMaskCache: token masks keyed by a matcher configuration (Matcher::configuration_key), shared
// by every sequence of one GrammarConstraint, so a state one sequence has seen costs the others a
// lookup instead of a trie walk (a server answering the same schema again and again). Bounded to
// kMaxBytes; cleared when full. Thread-safe (one mutex; held only for the lookup or insert).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace ogai::grammar {

using TokenMask = std::vector<std::uint64_t>;  // bit i of word i / 64: token i allowed

class SharedMaskCache {
 public:
  static constexpr std::size_t kMaxBytes = 64u << 20;

  std::shared_ptr<const TokenMask> find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = masks_.find(key);
    return it == masks_.end() ? nullptr : it->second;
  }
  void insert(const std::string& key, std::shared_ptr<const TokenMask> mask) {
    const std::size_t bytes = key.size() + mask->size() * sizeof(std::uint64_t) + 64;
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes_ + bytes > kMaxBytes) {
      masks_.clear();
      bytes_ = 0;
    }
    if (masks_.emplace(key, std::move(mask)).second) bytes_ += bytes;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const TokenMask>> masks_;
  std::size_t bytes_ = 0;
};

}  // namespace ogai::grammar
