#include "grammar/model_grammar.h"

#include "grammar/response_format.h"

namespace ogai::grammar {

std::shared_ptr<const Vocabulary> ModelGrammar::vocabulary() const {
  std::call_once(once_, [this] { vocabulary_ = Vocabulary::from_tokenizer(tokenizer_); });
  return vocabulary_;
}

std::shared_ptr<const GrammarConstraint> ModelGrammar::constraint(const ResponseFormat& format,
                                                                  const std::vector<std::int64_t>& end_ids) const {
  std::string key = std::to_string(static_cast<int>(format.kind)) + ":";
  for (std::int64_t id : end_ids) key += std::to_string(id) + ",";
  key += ":" + std::to_string(format.whitespace) + ":" + format.text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = constraints_.find(key); it != constraints_.end()) return it->second;
  }
  auto made = std::make_shared<const GrammarConstraint>(compile_response_format(format), vocabulary(), end_ids);
  std::lock_guard<std::mutex> lock(mu_);
  if (constraints_.size() >= kCachedConstraints) constraints_.clear();
  return constraints_.emplace(std::move(key), std::move(made)).first->second;
}

}  // namespace ogai::grammar
