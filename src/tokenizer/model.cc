#include "tokenizer/model.h"

#include <algorithm>

#include "base/error.h"
#include "tokenizer/bpe.h"

namespace ogai::tokenizer {

std::unique_ptr<Model> make_wordpiece(const JsonValue& value);  // word_models.cc
std::unique_ptr<Model> make_wordlevel(const JsonValue& value);  // word_models.cc
std::unique_ptr<Model> make_unigram(const JsonValue& value);    // unigram.cc

void Vocabulary::set_many(const std::string_view* tokens, const std::int32_t* ids, std::size_t n) {
  std::uint32_t offsets[64];
  for (std::size_t done = 0; done < n; done += 64) {
    std::size_t k = std::min<std::size_t>(64, n - done);
    to_id_.set_many(tokens + done, ids + done, k, offsets);
    for (std::size_t i = 0; i < k; ++i)
      entries_.push_back({ids[done + i], offsets[i], static_cast<std::uint32_t>(tokens[done + i].size())});
  }
}

// Builds id -> token from the entries in insertion order (ids usually ascend, so the writes are
// sequential). With a token listed twice, the later id wins, as in a JSON object read into a map.
void Vocabulary::finish() {
  for (const Entry& e : entries_) max_id_ = std::max(max_id_, e.id);
  bool dense = ids_are_compact(max_id_, entries_.size());
  std::size_t slots = dense ? static_cast<std::size_t>(max_id_) + 1 : 0;
  to_token_.assign(slots, std::string_view());
  present_.assign(slots, false);
  bool duplicates = to_id_.size() != entries_.size();  // only then can an entry be stale
  for (const Entry& e : entries_) {
    std::string_view token = to_id_.key_at(e.offset, e.len);
    if (duplicates && to_id_.find(token) != e.id) continue;
    if (!dense) {
      sparse_.emplace_back(e.id, token);
      continue;
    }
    to_token_[e.id] = token;
    present_[e.id] = true;
  }
  // Two tokens with one id: the later one wins, as in the dense table.
  std::stable_sort(sparse_.begin(), sparse_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto last_of_each = std::unique(sparse_.rbegin(), sparse_.rend(), [](const auto& a, const auto& b) { return a.first == b.first; });
  sparse_.erase(sparse_.begin(), last_of_each.base());
  entries_.clear();
  entries_.shrink_to_fit();
}

std::optional<std::string_view> Vocabulary::sparse_token(std::int32_t id) const {
  auto it = std::lower_bound(sparse_.begin(), sparse_.end(), id, [](const auto& e, std::int32_t v) { return e.first < v; });
  if (it == sparse_.end() || it->first != id) return std::nullopt;
  return it->second;
}

void read_vocab_object(const JsonValue& value, Vocabulary& vocab) {
  simdjson::dom::object obj;
  if (value.raw().get_object().get(obj)) value.fail_expected("an object {\"token\": id}");
  std::size_t key_bytes = 0;
  for (auto field : obj) key_bytes += field.key.size();
  vocab.reserve(obj.size(), key_bytes);
  constexpr std::size_t kBatch = 32;
  std::string_view keys[kBatch];
  std::int32_t ids[kBatch];
  std::size_t n = 0;
  for (auto field : obj) {
    std::int64_t id;
    if (field.value.get_int64().get(id) || id < 0 || id > INT32_MAX)
      fail(ErrorCode::kParse, value.source(), "expected a non-negative integer id at {}[\"{}\"], got {}",
           value.path(), std::string_view(field.key), json_type_name(field.value));
    keys[n] = field.key;
    ids[n] = static_cast<std::int32_t>(id);
    if (++n == kBatch) vocab.set_many(keys, ids, n), n = 0;
  }
  vocab.set_many(keys, ids, n);
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
