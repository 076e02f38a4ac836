#include "tokenizer/model.h"

#include "base/error.h"
#include "tokenizer/bpe.h"

namespace ogai::tokenizer {

std::unique_ptr<Model> make_wordpiece(const JsonValue& value);  // word_models.cc
std::unique_ptr<Model> make_wordlevel(const JsonValue& value);  // word_models.cc
std::unique_ptr<Model> make_unigram(const JsonValue& value);    // unigram.cc

void Vocabulary::finish() {
  std::int32_t max = -1;
  to_id_.for_each([&](std::string_view, std::int32_t id) { max = std::max(max, id); });
  to_token_.assign(static_cast<std::size_t>(max + 1), std::string_view());
  present_.assign(static_cast<std::size_t>(max + 1), false);
  to_id_.for_each([&](std::string_view token, std::int32_t id) {
    if (id >= 0) to_token_[id] = token, present_[id] = true;
  });
}

void read_vocab_object(const JsonValue& value, Vocabulary& vocab) {
  simdjson::dom::object obj;
  if (value.raw().get_object().get(obj)) value.fail_expected("an object {\"token\": id}");
  vocab.reserve(obj.size(), obj.size() * 12);
  for (auto field : obj) {
    std::int64_t id;
    if (field.value.get_int64().get(id) || id < 0 || id > INT32_MAX)
      fail(ErrorCode::kParse, value.source(), "expected a non-negative integer id at {}[\"{}\"], got {}",
           value.path(), std::string_view(field.key), json_type_name(field.value));
    vocab.set(field.key, static_cast<std::int32_t>(id));
  }
  vocab.finish();
}

std::unique_ptr<Model> make_model(const JsonValue& v) {
  if (!v.is_object()) v.fail_expected("an object");
  std::string type;
  if (auto t = v.find("type")) {
    type = std::string(t->as_string());
  } else if (auto vocab = v.find("vocab")) {
    // Hugging Face reads a model without "type" by trying each kind in turn.
    if (vocab->is_array()) type = "Unigram";
    else if (v.has("merges")) type = "BPE";
    else if (v.has("continuing_subword_prefix") || v.has("max_input_chars_per_word")) type = "WordPiece";
    else type = "WordLevel";
  } else {
    v.fail_invalid("model has neither \"type\" nor \"vocab\"");
  }
  if (type == "BPE") return std::make_unique<Bpe>(v);
  if (type == "WordPiece") return make_wordpiece(v);
  if (type == "WordLevel") return make_wordlevel(v);
  if (type == "Unigram") return make_unigram(v);
  v.fail_unsupported("model", type);
}

}  // namespace ogai::tokenizer
