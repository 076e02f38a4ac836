// ogai::tokenizer::Tokenizer: a Hugging Face tokenizer.json, loaded and run exactly as the
// Hugging Face `tokenizers` library runs it (ids and text are identical; see docs/tokenizer.md).
//
// Pipeline: added tokens are split off (raw, then after normalization) -> normalizer ->
// pre-tokenizer -> model -> post-processor (special tokens, when asked) -> truncation/padding
// when the file configures them. Decoding maps ids to tokens (unknown ids are dropped, special
// tokens optionally skipped) and runs the decoder chain.
//
// Ownership and threads: a Tokenizer is a cheap, copyable handle to an immutable loaded
// tokenizer; every method is const and safe to call from many threads at once. Load once per
// package and share it. A StreamingDecoder (streaming_decoder.h) holds per-stream state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ogai::tokenizer {

struct Pipeline;  // the loaded components (tokenizer.cc)

class Tokenizer {
 public:
  // Loads `path`: a tokenizer.json file, or a package directory holding one. Throws ogai::Error:
  // kNotFound (missing file), kParse (malformed JSON: line, column and byte; a field of the wrong
  // type: its JSON path), kUnsupported ("unsupported <kind> '<type>' at <json path>"),
  // kInvalidPackage (e.g. a merge that names a token missing from the vocabulary).
  static Tokenizer load(const std::filesystem::path& path);
  // Loads a tokenizer.json document held in memory; `source` names it in errors.
  static Tokenizer from_json(std::string_view json, const std::string& source = "<memory>");

  // Token ids of `text` (UTF-8; invalid UTF-8 throws kInvalidArgument naming the byte offset).
  // add_special_tokens applies the post-processor (e.g. a leading <s>), as Hugging Face's
  // encode(text, add_special_tokens) does.
  std::vector<std::int32_t> encode(std::string_view text, bool add_special_tokens = true) const;
  // encode() of each text; with padding configured, BatchLongest pads to the batch's longest.
  std::vector<std::vector<std::int32_t>> encode_batch(std::span<const std::string> texts,
                                                      bool add_special_tokens = true) const;

  // The text of `ids`. Ids that name no token are skipped; with skip_special_tokens, special
  // added tokens are skipped too.
  std::string decode(std::span<const std::int32_t> ids, bool skip_special_tokens = false) const;
  // decode() skipping special tokens except those in `kept_specials`.
  std::string decode_keeping(std::span<const std::int32_t> ids, std::span<const std::int32_t> kept_specials) const;

  // The id of a token string (added tokens first, then the model vocabulary).
  std::optional<std::int32_t> token_to_id(std::string_view token) const;
  // The token string of an id, or "" when no token has that id (see has_id()).
  std::string id_to_token(std::int32_t id) const;
  bool has_id(std::int32_t id) const;
  // One more than the largest id of any token (model or added): the size of an id-indexed table
  // such as the logits row.
  std::size_t vocab_size() const;
  // Whether `id` is a special added token (those skip_special_tokens drops).
  bool is_special(std::int32_t id) const;

  const Pipeline& pipeline() const { return *pipeline_; }

 private:
  explicit Tokenizer(std::shared_ptr<const Pipeline> pipeline) : pipeline_(std::move(pipeline)) {}
  std::shared_ptr<const Pipeline> pipeline_;
};

}  // namespace ogai::tokenizer
