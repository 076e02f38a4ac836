#include "grammar/vocabulary.h"

#include "tokenizer/token_bytes.h"
#include "tokenizer/tokenizer.h"

namespace ogai::grammar {
namespace {

TokenTrie whole_trie(const std::vector<std::string>& bytes) {
  std::vector<std::pair<std::int32_t, std::string_view>> entries;
  entries.reserve(bytes.size());
  for (std::size_t id = 0; id < bytes.size(); ++id) entries.emplace_back(static_cast<std::int32_t>(id), bytes[id]);
  return build_token_trie(std::move(entries));
}

}  // namespace

Vocabulary::Vocabulary(std::vector<std::string> bytes)
    : bytes_(std::move(bytes)),
      trie_(whole_trie(bytes_)),
      runs_{RunSplit::build(bytes_, RunSplit::Kind::kPlain), RunSplit::build(bytes_, RunSplit::Kind::kLetter)} {}

std::shared_ptr<const Vocabulary> Vocabulary::from_tokenizer(const tokenizer::Tokenizer& tokenizer,
                                                             const std::vector<std::int32_t>& markers) {
  std::vector<std::string> bytes(tokenizer.vocab_size());
  for (std::size_t id = 0; id < bytes.size(); ++id) {
    const auto i = static_cast<std::int32_t>(id);
    if (tokenizer.has_id(i) && !tokenizer.is_special(i)) bytes[id] = tokenizer::token_bytes(tokenizer, i);
  }
  for (std::int32_t id : markers)
    if (id >= 0 && static_cast<std::size_t>(id) < bytes.size()) bytes[static_cast<std::size_t>(id)] = tokenizer.id_to_token(id);
  return std::make_shared<const Vocabulary>(std::move(bytes));
}

}  // namespace ogai::grammar
