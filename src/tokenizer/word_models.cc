// WordPiece (greedy longest-match-first with a continuing-subword prefix) and WordLevel (whole
// pieces looked up in the vocabulary), with Hugging Face's semantics.
#include "base/error.h"
#include "tokenizer/model.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

std::int32_t require_unk(const Vocabulary& vocab, const std::string& unk, std::string_view model) {
  std::int32_t id = vocab.find(unk);
  if (id < 0) fail(ErrorCode::kInvalidPackage, "tokenizer", "the {} unk_token '{}' is not in the vocabulary", model, unk);
  return id;
}

class WordPiece final : public Model {
 public:
  explicit WordPiece(const JsonValue& v)
      : unk_(v.string_or("unk_token", "[UNK]")),
        prefix_(v.string_or("continuing_subword_prefix", "##")),
        max_chars_(static_cast<std::size_t>(v.int_or("max_input_chars_per_word", 100))) {
    read_vocab_object(v.at("vocab"), vocab_);
  }

  void tokenize(std::string_view w, std::vector<std::int32_t>& ids) const override {
    if (count_chars(w) > max_chars_) {
      ids.push_back(require_unk(vocab_, unk_, "WordPiece"));
      return;
    }
    std::size_t first = ids.size();
    std::string candidate;
    for (std::size_t start = 0; start < w.size();) {
      std::size_t end = w.size();
      std::int32_t found = -1;
      while (start < end) {
        candidate.clear();
        if (start > 0) candidate += prefix_;
        candidate.append(w.substr(start, end - start));
        if ((found = vocab_.find(candidate)) >= 0) break;
        prev_char(w, end);
      }
      if (found < 0) {
        ids.resize(first);
        ids.push_back(require_unk(vocab_, unk_, "WordPiece"));
        return;
      }
      ids.push_back(found);
      start = end;
    }
  }

 private:
  std::string unk_, prefix_;
  std::size_t max_chars_;
};

class WordLevel final : public Model {
 public:
  explicit WordLevel(const JsonValue& v) : unk_(v.string_or("unk_token", "<unk>")) {
    read_vocab_object(v.at("vocab"), vocab_);
  }
  void tokenize(std::string_view w, std::vector<std::int32_t>& ids) const override {
    std::int32_t id = vocab_.find(w);
    ids.push_back(id >= 0 ? id : require_unk(vocab_, unk_, "WordLevel"));
  }

 private:
  std::string unk_;
};

}  // namespace

std::unique_ptr<Model> make_wordpiece(const JsonValue& value) { return std::make_unique<WordPiece>(value); }
std::unique_ptr<Model> make_wordlevel(const JsonValue& value) { return std::make_unique<WordLevel>(value); }

}  // namespace ogai::tokenizer
