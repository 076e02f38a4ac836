// The facts a v1 `package.tokenizer` needs, read from a Hugging Face tokenizer.json (internal to
// the importer): the model's algorithm, whether it is byte-level, the vocabulary size, and the
// content of a token id (added tokens first, then the model's vocabulary) and the reverse.
//
// Cost: one JSON parse of the file and two maps over its vocabulary. Throws ogai::Error naming
// the file: kNotFound when absent, kParse when it is not a tokenizer.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace ogai::importer {

struct TokenizerSummary {
  std::string algorithm;        // model.type lower-cased: bpe, unigram, wordpiece, wordlevel
  bool byte_level = false;      // a ByteLevel pre-tokenizer or decoder
  std::int64_t vocab_size = 0;  // 1 + the largest id of the vocabulary and the added tokens
  std::map<std::int64_t, std::string> tokens;  // id -> content
  std::map<std::string, std::int64_t> ids;     // content -> id (added tokens win)

  std::optional<std::string> content(std::int64_t id) const;
  std::optional<std::int64_t> id_of(const std::string& content) const;
};

TokenizerSummary read_tokenizer_summary(const std::filesystem::path& tokenizer_json);
// The same from the file's text (`origin` names it in errors).
TokenizerSummary parse_tokenizer_summary(const std::string& text, const std::string& origin);

}  // namespace ogai::importer
