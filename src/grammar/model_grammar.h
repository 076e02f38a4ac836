// ModelGrammar: what structured output keeps per model: its Vocabulary (vocabulary.h), built from
// the tokenizer on the first constrained request (tens of milliseconds for 32k-256k tokens), and
// the constraints compiled against it, so a response format asked again (a server's usual case)
// reuses its compiled grammar and its warm shared mask cache. A forced-call format (kToolCalls)
// whose markers are special tokens of the tokenizer (Gemma-4's <|tool_call>, <tool_call|>, <|"|>)
// is bound to a vocabulary in which those special tokens spell their text, so the call can be
// written with the tokens the model was trained on; every other format never produces a special
// token. Thread-safe. The tokenizer must outlive it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_constraint.h"
#include "grammar/vocabulary.h"
#include "ogai/options.h"

namespace ogai::grammar {

class ModelGrammar {
 public:
  static constexpr std::size_t kCachedConstraints = 32;  // then the cache starts over

  explicit ModelGrammar(const tokenizer::Tokenizer& tokenizer) : tokenizer_(tokenizer) {}

  std::shared_ptr<const Vocabulary> vocabulary() const;
  // The vocabulary in which the special tokens `markers` (sorted ids) spell their text; built once
  // per marker set (the plain vocabulary for none).
  std::shared_ptr<const Vocabulary> vocabulary_with(const std::vector<std::int32_t>& markers) const;
  // The special tokens, other than `end_ids`, whose text occurs in a kToolCalls spec's own strings
  // (begin, call_template, call_open/close, separator, end, the argument dialect's delimiters; not
  // the functions' schemas), sorted.
  std::vector<std::int32_t> spec_markers(const ResponseFormat& format, const std::vector<TokenId>& end_ids) const;
  // `format` compiled (compile_response_format's errors) and bound to the vocabulary and end ids.
  std::shared_ptr<const GrammarConstraint> constraint(const ResponseFormat& format,
                                                      const std::vector<TokenId>& end_ids) const;

 private:
  const tokenizer::Tokenizer& tokenizer_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const Vocabulary> vocabulary_;
  mutable std::vector<std::int32_t> specials_;  // every special id, found with vocabulary_
  mutable std::map<std::vector<std::int32_t>, std::shared_ptr<const Vocabulary>> marked_;  // under mu_
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const GrammarConstraint>> constraints_;
};

}  // namespace ogai::grammar
