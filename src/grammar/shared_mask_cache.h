// SharedMaskCache: token masks (MaskEntry) keyed by a matcher configuration (Matcher::configuration_key), shared
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

// What one matcher configuration allows. A configuration decides whether the text is complete,
// so the end ids' part is cached with it.
struct MaskEntry {
  TokenMask text;                 // the tokens whose bytes may follow (end ids excluded)
  TokenMask allowed;              // text plus the end ids when the configuration is complete; empty: == text
  std::vector<std::int32_t> ids;  // the allowed set, ascending, when listed
  bool listed = false;            // small enough to list (at most a 64th of the vocabulary)
  std::size_t count = 0;          // allowed ids, end ids included

  const TokenMask& allowed_words() const { return allowed.empty() ? text : allowed; }
  std::size_t bytes() const { return (text.size() + allowed.size()) * sizeof(std::uint64_t) + ids.size() * 4 + 128; }
};

class SharedMaskCache {
 public:
  static constexpr std::size_t kMaxBytes = 64u << 20;

  std::shared_ptr<const MaskEntry> find(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = masks_.find(key);
    return it == masks_.end() ? nullptr : it->second;
  }
  void insert(const std::string& key, std::shared_ptr<const MaskEntry> mask) {
    const std::size_t bytes = key.size() + mask->bytes();
    std::lock_guard<std::mutex> lock(mu_);
    if (bytes_ + bytes > kMaxBytes) {
      masks_.clear();
      bytes_ = 0;
    }
    if (masks_.emplace(key, std::move(mask)).second) bytes_ += bytes;
  }

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const MaskEntry>> masks_;
  std::size_t bytes_ = 0;
};

}  // namespace ogai::grammar
