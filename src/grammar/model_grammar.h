// ModelGrammar: what structured output keeps per model: its Vocabulary (vocabulary.h), built from
// the tokenizer on the first constrained request (tens of milliseconds for 32k-256k tokens), and
// the constraints compiled against it, so a response format asked again (a server's usual case)
// reuses its compiled grammar and its warm shared mask cache. Thread-safe. The tokenizer must
// outlive it.
#pragma once

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
  // `format` compiled (compile_response_format's errors) and bound to the vocabulary and end ids.
  std::shared_ptr<const GrammarConstraint> constraint(const ResponseFormat& format,
                                                      const std::vector<std::int64_t>& end_ids) const;

 private:
  const tokenizer::Tokenizer& tokenizer_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const Vocabulary> vocabulary_;
  mutable std::mutex mu_;
  mutable std::unordered_map<std::string, std::shared_ptr<const GrammarConstraint>> constraints_;
};

}  // namespace ogai::grammar
