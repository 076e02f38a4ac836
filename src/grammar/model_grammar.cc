#include "grammar/model_grammar.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "grammar/response_format.h"
#include "tokenizer/tokenizer.h"

namespace ogai::grammar {
namespace {

// The strings of a kToolCalls spec that the reply writes verbatim (everything but "functions").
void collect_strings(const nlohmann::json& j, std::vector<std::string>& out) {
  if (j.is_string()) {
    out.push_back(j.get<std::string>());
  } else if (j.is_array()) {
    for (const auto& v : j) collect_strings(v, out);
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "functions") collect_strings(it.value(), out);
  }
}

}  // namespace

std::shared_ptr<const Vocabulary> ModelGrammar::vocabulary() const {
  std::call_once(once_, [this] {
    vocabulary_ = Vocabulary::from_tokenizer(tokenizer_);
    for (std::size_t id = 0; id < tokenizer_.vocab_size(); ++id) {
      const auto i = static_cast<std::int32_t>(id);
      if (tokenizer_.has_id(i) && tokenizer_.is_special(i) && !tokenizer_.id_to_token(i).empty())
        specials_.push_back(i);
    }
  });
  return vocabulary_;
}

std::shared_ptr<const Vocabulary> ModelGrammar::vocabulary_with(const std::vector<std::int32_t>& markers) const {
  if (markers.empty()) return vocabulary();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = marked_.find(markers); it != marked_.end()) return it->second;
  }
  auto made = Vocabulary::from_tokenizer(tokenizer_, markers);
  std::lock_guard<std::mutex> lock(mu_);
  return marked_.emplace(markers, std::move(made)).first->second;
}

std::vector<std::int32_t> ModelGrammar::spec_markers(const ResponseFormat& format,
                                                     const std::vector<TokenId>& end_ids) const {
  std::vector<std::int32_t> markers;
  if (format.kind != ResponseFormat::Kind::kToolCalls) return markers;
  nlohmann::json spec = nlohmann::json::parse(format.text, nullptr, false);
  if (spec.is_discarded()) return markers;  // compile_response_format names the error
  std::vector<std::string> strings;
  collect_strings(spec, strings);
  vocabulary();  // finds specials_
  for (std::int32_t id : specials_) {
    if (std::find(end_ids.begin(), end_ids.end(), id) != end_ids.end()) continue;
    const std::string text = tokenizer_.id_to_token(id);
    if (std::any_of(strings.begin(), strings.end(),
                    [&](const std::string& s) { return s.find(text) != std::string::npos; }))
      markers.push_back(id);
  }
  return markers;
}

std::shared_ptr<const GrammarConstraint> ModelGrammar::constraint(const ResponseFormat& format,
                                                                  const std::vector<TokenId>& end_ids) const {
  std::string key = std::to_string(static_cast<int>(format.kind)) + ":";
  for (TokenId id : end_ids) key += std::to_string(id) + ",";
  key += ":" + std::to_string(format.whitespace) + ":" + format.text;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = constraints_.find(key); it != constraints_.end()) return it->second;
  }
  auto made = std::make_shared<const GrammarConstraint>(compile_response_format(format),
                                                        vocabulary_with(spec_markers(format, end_ids)), end_ids);
  std::lock_guard<std::mutex> lock(mu_);
  if (constraints_.size() >= kCachedConstraints) constraints_.clear();
  return constraints_.emplace(std::move(key), std::move(made)).first->second;
}

}  // namespace ogai::grammar
