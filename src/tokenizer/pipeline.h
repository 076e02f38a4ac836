// The loaded components of a tokenizer (internal to the tokenizer stage). Immutable after
// load_pipeline() returns; shared by Tokenizer handles and StreamingDecoders.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/added_vocabulary.h"
#include "tokenizer/bpe.h"
#include "tokenizer/decoder.h"
#include "tokenizer/json.h"
#include "tokenizer/model.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/pre_tokenizer.h"

namespace ogai::tokenizer {

struct Truncation {
  std::size_t max_length = 0;
  bool left = false;  // direction "Left": keep the end
};

struct Padding {
  std::optional<std::size_t> fixed;  // strategy {"Fixed": n}; nullopt = BatchLongest
  std::size_t multiple_of = 0;
  std::int32_t pad_id = 0;
  bool left = false;
};

struct Pipeline {
  AddedVocabulary added;
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<Model> model;
  std::unique_ptr<PostProcessor> post_processor;
  std::unique_ptr<Decoder> decoder;
  std::optional<Truncation> truncation;
  std::optional<Padding> padding;
  // Set when the pre-tokenizer is a plain byte-level split and the model can start from bytes.
  std::optional<ByteLevelPlan> byte_level;
  bool track_origins = false;
  std::int32_t max_id = -1;

  // Ids of `text` before post-processing.
  void encode_text(std::string_view text, std::vector<std::int32_t>& ids) const;
  // Adds special tokens and truncates as configured (padding is left to the caller).
  void finish(std::vector<std::int32_t>& ids, bool add_special_tokens) const;
  void pad(std::vector<std::int32_t>& ids, std::size_t target) const;
  // The token string of an id (added tokens first), or nullopt.
  std::optional<std::string_view> token_text(std::int32_t id) const;
  // Runs the decoder chain (or joins with spaces when there is none).
  std::string decode_tokens(std::vector<std::string> tokens, ChainState& state) const;
};

std::shared_ptr<const Pipeline> load_pipeline(const JsonValue& root);

}  // namespace ogai::tokenizer
