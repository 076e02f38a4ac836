// Added tokens ("added_tokens"): special and normal tokens matched in the text before the model
// runs, as Hugging Face does: tokens with normalized=false are found in the raw input, the
// others in the normalized text; the leftmost, then longest, match wins; single_word tokens
// only match between non-word characters; lstrip/rstrip tokens swallow the whitespace beside
// them. A content already in the model vocabulary keeps that id (as Hugging Face's libraries do);
// another token keeps its declared "id" (as transformers.js does: the id the graph was trained
// with, even beyond the model vocabulary, where the Rust library renumbers); one without an id
// gets the next id after the vocabulary. The id index costs the number of tokens, not the largest id. Built once at load;
// immutable and thread-safe afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/json.h"
#include "tokenizer/model.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/piece.h"

namespace ogai::tokenizer {

struct AddedToken {
  std::string content;
  // The text decoding shows: the normalized content for normalized tokens (Hugging Face keeps
  // that in its id -> token map), else the content.
  std::string decoded;
  std::int32_t id = -1;
  bool special = false, single_word = false, lstrip = false, rstrip = false, normalized = true;
};

class AddedVocabulary {
 public:
  // Reads "added_tokens" (an array; absent or null = none).
  void load(const std::optional<JsonValue>& value, const Model& model, const Normalizer* normalizer);

  // Splits `piece` (raw input when `normalized` is false, else normalized text) on the added
  // tokens of that kind, appending text pieces and added-token pieces to `out`.
  void split(Piece piece, bool normalized, std::vector<Piece>& out) const;
  bool has_raw() const { return !raw_.patterns.empty(); }
  bool has_normalized() const { return !normalized_.patterns.empty(); }

  std::int32_t find(std::string_view content) const { return by_content_.find(content); }
  const AddedToken* by_id(std::int32_t id) const;
  bool is_special(std::int32_t id) const;
  // Whether `content` is the content of a special added token.
  bool is_special_content(std::string_view content) const;
  std::int32_t max_id() const { return max_id_; }

 private:
  // A byte trie over the patterns of one kind, for leftmost-longest matching.
  struct Matcher {
    std::vector<std::string> patterns;
    std::vector<std::int32_t> ids;  // id of each pattern
    PairMap edges;                  // (node, byte) -> child node (in Value::id)
    std::vector<std::int32_t> terminal;  // node -> pattern index, or -1
    bool first_byte[256] = {};
    void build();
    // Longest pattern starting at `at`: its index, or -1.
    std::int32_t longest_at(std::string_view text, std::size_t at, std::size_t* end) const;
  };
  std::vector<std::pair<std::size_t, std::pair<std::size_t, std::int32_t>>> find_matches(std::string_view text,
                                                                                       const Matcher& m) const;

  std::vector<AddedToken> tokens_;  // in file order
  StringMap by_content_;
  void assign_ids(const Model& model);
  void index_ids();

  std::vector<std::int32_t> index_by_id_;  // compact ids: id -> index into tokens_, or -1
  std::vector<std::pair<std::int32_t, std::int32_t>> sparse_index_;  // sparse ids: (id, index), sorted
  Matcher raw_, normalized_;
  std::int32_t max_id_ = -1;
};

}  // namespace ogai::tokenizer
