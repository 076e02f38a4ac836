// Byte-pair encoding, as Hugging Face applies it: characters (with continuing_subword_prefix /
// end_of_word_suffix) become symbols, unknown ones fall back to <0xXX> byte tokens or the
// (optionally fused) unknown token, then merges apply lowest rank first, leftmost on ties,
// through a priority queue with the same stale-entry rule. `ignore_merges` emits a piece found
// whole in the vocabulary as is. Dropout is ignored (inference is deterministic).
// tokenize_bytes() is the fast path for byte-level tokenizers: it starts from the raw bytes
// (each byte is the symbol of its byte-level character) and skips building strings.
#pragma once

#include "tokenizer/model.h"

namespace ogai::tokenizer {

struct BpeOptions {
  std::optional<std::string> unk_token;
  std::string continuing_subword_prefix;
  std::string end_of_word_suffix;
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
};

class Bpe final : public Model {
 public:
  explicit Bpe(const JsonValue& value);

  void tokenize(std::string_view piece, std::vector<std::int32_t>& ids) const override;
  // Whether tokenize_bytes() applies: every byte's byte-level character is in the vocabulary
  // and no subword prefix/suffix is set.
  bool supports_byte_level() const { return byte_level_ok_; }
  // Tokenizes the byte-level text of `raw` (the raw bytes, before the byte-level mapping).
  void tokenize_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const;

 private:
  struct Symbol {
    std::int32_t id, prev, next;
    std::uint32_t len;
  };
  void read_merges(const JsonValue& merges);
  bool split_merge(std::string_view line, std::string_view* a, std::string_view* b) const;
  void add_merge(std::string_view a, std::string_view b, const std::int32_t* ids, std::uint32_t rank,
                 const JsonValue& where);
  std::int32_t unk_id(const std::string& unk) const;
  void build_symbols(std::string_view piece, std::vector<Symbol>& symbols) const;
  void merge(std::vector<Symbol>& symbols, std::vector<std::int32_t>& ids) const;

  BpeOptions options_;
  PairMap merges_;
  std::int32_t byte_tokens_[256];      // ids of "<0xXX>", or -1
  std::int32_t byte_level_ids_[256];   // ids of the byte-level characters, or -1
  bool byte_level_ok_ = false;
};

}  // namespace ogai::tokenizer
