// Frame-synchronous transcription decoding (a `profiles.*.decoding` contract of kind `ctc` or
// `greedy_argmax`): per row, the argmax class of each valid frame (ties: the lowest class id),
// runs of one id collapsed when `collapse_repeats`, the blank id dropped (after collapsing, so
// "A <blank> A" stays two A's), the ids mapped to token strings, `ignored_tokens` dropped, and the
// words split on `word_delimiter` (empty groups discarded, groups joined by one U+0020); without a
// delimiter the tokens are concatenated verbatim. The reference's semantics
// (onnx-genai-metadata's SequenceDecodingSpec / DecodingVocabulary).
//
// Logits: float32 / float16 / bfloat16, rank 2 ([time, class] in the declared axis order, one row)
// or rank 3 (the remaining axis is the batch). Lengths: int64 / int32 [batch] (or [batch, 1]),
// each in [0, frames]; without lengths every frame is valid. Errors (kInvalidArgument) name the
// profile's document path and the value. Does not run a model, does no I/O; a CtcDecoder is
// immutable after construction and safe to use from several threads.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ort/tensor.h"

namespace ogai::workflow {

struct CtcSpec {
  std::string where;                   // document path for errors: "profiles.NAME.decoding"
  bool blank_removed = true;           // kind ctc (always) or greedy_argmax with a blank_id
  std::int64_t blank_id = 0;
  bool collapse_repeats = false;
  std::int64_t time_axis = 1, class_axis = 2;
  std::optional<std::int64_t> classes;  // vocabulary.size: the class axis' extent must equal it
  std::vector<std::string> tokens;      // class id -> string
  std::optional<std::string> word_delimiter;
  std::set<std::string> ignored_tokens;
};

struct RowTranscript {
  std::vector<std::int64_t> ids;  // after collapsing and blank removal (before ignored tokens)
  std::string text;
};

class CtcDecoder {
 public:
  explicit CtcDecoder(CtcSpec spec);
  // One transcript per batch row. `lengths` may be null.
  std::vector<RowTranscript> decode(const ort::Tensor& logits, const ort::Tensor* lengths) const;
  // The text of an id sequence (ignored tokens, word delimiter); ids outside the vocabulary throw.
  std::string render(const std::vector<std::int64_t>& ids) const;
  const CtcSpec& spec() const { return spec_; }

 private:
  CtcSpec spec_;
};

}  // namespace ogai::workflow
