// Post-processors of tokenizer.json ("post_processor") for single sequences: TemplateProcessing
// (its "single" template), BertProcessing, RobertaProcessing, ByteLevel (no change to ids) and
// Sequence. Special tokens are added only when the caller asks for them. Built once at load;
// immutable and thread-safe afterwards.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tokenizer/json.h"

namespace ogai::tokenizer {

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Adds the special tokens around `ids`.
  virtual void process(std::vector<std::int32_t>& ids) const = 0;
  // How many ids process() adds.
  virtual std::size_t added_count() const = 0;
};

std::unique_ptr<PostProcessor> make_post_processor(const JsonValue& value);

}  // namespace ogai::tokenizer
