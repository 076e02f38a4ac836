// Tokenizer models of tokenizer.json ("model"): BPE, WordPiece, Unigram and WordLevel. A model
// turns one pre-tokenized piece of text into ids and owns the vocabulary. Built once at load;
// immutable and safe to use from many threads afterwards (no caches).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/huge_pages.h"
#include "tokenizer/json.h"
#include "tokenizer/vocab.h"

namespace ogai::tokenizer {

// A vocabulary: token <-> id in both directions. Memory follows the number of tokens, not the
// largest id: id -> token is a dense table when the ids are compact (at most about twice as many
// slots as tokens), else a sorted list searched in O(log n) (a sparse id such as 10^9).
class Vocabulary {
 public:
  void reserve(std::size_t n, std::size_t key_bytes = 0) {
    to_id_.reserve(n, key_bytes);
    entries_.reserve(n);
  }
  void set(std::string_view token, std::int32_t id) {
    entries_.push_back({id, to_id_.set(token, id), static_cast<std::uint32_t>(token.size())});
  }
  // set() of n tokens (prefetching; for large vocabularies).
  void set_many(const std::string_view* tokens, const std::int32_t* ids, std::size_t n);
  // Builds the id -> token table; call once after the last set().
  void finish();
  std::int32_t find(std::string_view token) const { return to_id_.find(token); }
  void find_many(const std::string_view* tokens, std::size_t n, std::int32_t* out) const {
    to_id_.find_many(tokens, n, out);
  }
  std::optional<std::string_view> token(std::int32_t id) const {
    if (!sparse_.empty()) return sparse_token(id);
    if (id < 0 || static_cast<std::size_t>(id) >= to_token_.size() || !present_[id]) return std::nullopt;
    return to_token_[id];
  }
  std::size_t size() const { return to_id_.size(); }
  // The largest id, or -1 when empty.
  std::int32_t max_id() const { return max_id_; }

 private:
  struct Entry {
    std::int32_t id;
    std::uint32_t offset, len;
  };
  StringMap to_id_;
  std::vector<Entry, HugePageAllocator<Entry>> entries_;  // in insertion order, until finish()
  std::optional<std::string_view> sparse_token(std::int32_t id) const;
  std::vector<std::string_view, HugePageAllocator<std::string_view>> to_token_;  // dense ids
  std::vector<bool> present_;
  std::vector<std::pair<std::int32_t, std::string_view>> sparse_;  // sparse ids: sorted by id
  std::int32_t max_id_ = -1;
};

// Whether ids up to `max_id` for `count` entries fit a dense table (slots <= 2 * count + 4096).
inline bool ids_are_compact(std::int64_t max_id, std::size_t count) {
  return max_id < 2 * static_cast<std::int64_t>(count) + 4096;
}

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of one non-empty piece. Throws ogai::Error when the model needs an unknown
  // token that its vocabulary lacks.
  virtual void tokenize(std::string_view piece, std::vector<std::int32_t>& ids) const = 0;
  const Vocabulary& vocab() const { return vocab_; }

 protected:
  Vocabulary vocab_;
};

// Builds the model at `value` (BPE, WordPiece, WordLevel, Unigram; a model without "type" is
// recognized by its fields as Hugging Face does). Unknown types fail with
// "unsupported model '<type>' at model".
std::unique_ptr<Model> make_model(const JsonValue& value);

// Reads {"token": id, ...} into `vocab`.
void read_vocab_object(const JsonValue& value, Vocabulary& vocab);

}  // namespace ogai::tokenizer
