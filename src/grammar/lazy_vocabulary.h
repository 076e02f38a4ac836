// LazyVocabulary: a model's grammar Vocabulary (vocabulary.h), built from its tokenizer on the
// first constrained request (tens of milliseconds for a 32k-256k vocabulary) and shared after.
// Thread-safe. The tokenizer must outlive it.
#pragma once

#include <memory>
#include <mutex>

#include "grammar/vocabulary.h"

namespace ogai::grammar {

class LazyVocabulary {
 public:
  explicit LazyVocabulary(const tokenizer::Tokenizer& tokenizer) : tokenizer_(tokenizer) {}
  std::shared_ptr<const Vocabulary> get() const {
    std::call_once(once_, [this] { vocabulary_ = Vocabulary::from_tokenizer(tokenizer_); });
    return vocabulary_;
  }

 private:
  const tokenizer::Tokenizer& tokenizer_;
  mutable std::once_flag once_;
  mutable std::shared_ptr<const Vocabulary> vocabulary_;
};

}  // namespace ogai::grammar
