#include "tokenizer/added_vocabulary.h"

#include <algorithm>

#include "base/error.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

bool ends_with_word(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = s.size();
  return is_word_char(prev_char(s, i));
}

bool starts_with_word(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = 0;
  return is_word_char(next_char(s, i));
}

// The entry's "id": a non-negative 32-bit integer, or -1 when absent.
std::int32_t declared_id(const JsonValue& item) {
  auto v = item.find("id");
  if (!v || v->is_null()) return -1;
  std::int64_t id = v->as_int();
  if (id < 0 || id > INT32_MAX)
    fail(ErrorCode::kParse, item.source(), "expected a non-negative 32-bit token id at {}.id, got {}", item.path(), id);
  return static_cast<std::int32_t>(id);
}

}  // namespace

// Ids, first rule that applies: a content seen before keeps its id; a content in the model
// vocabulary keeps that id (as Hugging Face's libraries do); a token with a declared "id" keeps it
// (as transformers.js does, where the Rust library renumbers: it is the row of the graph's
// logits); else the next id after the vocabulary and the added tokens seen so far.
void AddedVocabulary::assign_ids(const Model& model) {
  std::int64_t vocab_size = static_cast<std::int64_t>(model.vocab().size());
  std::int64_t max_added = -1;
  for (AddedToken& t : tokens_) {
    std::int64_t id = by_content_.find(t.content);
    if (id < 0) id = model.vocab().find(t.content);
    if (id < 0) id = t.id;
    if (id < 0) id = max_added < 0 ? vocab_size : (max_added >= vocab_size || vocab_size == 0 ? max_added + 1 : vocab_size);
    if (id > INT32_MAX) fail(ErrorCode::kParse, "added_tokens", "no 32-bit id is left for added token '{}'", t.content);
    t.id = static_cast<std::int32_t>(id);
    by_content_.set(t.content, t.id);
    max_added = std::max(max_added, id);
  }
  max_id_ = static_cast<std::int32_t>(max_added);
}

// id -> index into tokens_ (a later token with the same id wins), dense or sorted by id.
void AddedVocabulary::index_ids() {
  if (ids_are_compact(max_id_, tokens_.size())) {
    index_by_id_.assign(static_cast<std::size_t>(max_id_) + 1, -1);
    for (std::size_t i = 0; i < tokens_.size(); ++i) index_by_id_[tokens_[i].id] = static_cast<std::int32_t>(i);
    return;
  }
  for (std::size_t i = 0; i < tokens_.size(); ++i) sparse_index_.emplace_back(tokens_[i].id, static_cast<std::int32_t>(i));
  std::stable_sort(sparse_index_.begin(), sparse_index_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  auto last_of_each = std::unique(sparse_index_.rbegin(), sparse_index_.rend(), [](const auto& a, const auto& b) { return a.first == b.first; });
  sparse_index_.erase(sparse_index_.begin(), last_of_each.base());
}

void AddedVocabulary::Matcher::build() {
  terminal.assign(1, -1);
  edges.reserve(patterns.size() * 8);
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    std::int32_t node = 0;
    for (char ch : patterns[p]) {
      auto c = static_cast<unsigned char>(ch);
      const auto* e = edges.find(node, c);
      if (!e) {
        std::int32_t child = static_cast<std::int32_t>(terminal.size());
        terminal.push_back(-1);
        edges.insert(node, c, {0, child});
        node = child;
      } else {
        node = e->id;
      }
    }
    if (!patterns[p].empty() && terminal[node] < 0) terminal[node] = static_cast<std::int32_t>(p);
    if (!patterns[p].empty()) first_byte[static_cast<unsigned char>(patterns[p][0])] = true;
  }
}

std::int32_t AddedVocabulary::Matcher::longest_at(std::string_view text, std::size_t at, std::size_t* end) const {
  std::int32_t node = 0, best = -1;
  for (std::size_t i = at; i < text.size(); ++i) {
    const auto* e = edges.find(node, static_cast<unsigned char>(text[i]));
    if (!e) break;
    node = e->id;
    if (terminal[node] >= 0) best = terminal[node], *end = i + 1;
  }
  return best;
}

void AddedVocabulary::load(const std::optional<JsonValue>& value, const Model& model, const Normalizer* normalizer) {
  if (value && !value->is_null()) {
    for (const JsonValue& item : value->items()) {
      AddedToken t;
      t.content = std::string(item.at("content").as_string());
      t.special = item.bool_or("special", false);
      t.single_word = item.bool_or("single_word", false);
      t.lstrip = item.bool_or("lstrip", false);
      t.rstrip = item.bool_or("rstrip", false);
      t.normalized = item.bool_or("normalized", !t.special);
      t.id = declared_id(item);
      if (!t.content.empty()) tokens_.push_back(std::move(t));
    }
  }
  assign_ids(model);
  index_ids();
  // Special tokens first, then the others (the order Hugging Face builds its matchers in).
  std::vector<std::size_t> order(tokens_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t i) { return tokens_[i].special; });
  for (std::size_t i : order) {
    const AddedToken& t = tokens_[i];
    Matcher& m = t.normalized ? normalized_ : raw_;
    std::string pattern = t.content;
    if (t.normalized && normalizer) {
      Piece p{pattern, {}, -1};
      normalizer->normalize(p);
      pattern = std::move(p.text);
    }
    tokens_[i].decoded = pattern;
    m.patterns.push_back(std::move(pattern));
    m.ids.push_back(t.id);
  }
  raw_.build();
  normalized_.build();
}

const AddedToken* AddedVocabulary::by_id(std::int32_t id) const {
  if (id < 0 || id > max_id_) return nullptr;
  if (sparse_index_.empty()) return index_by_id_[id] < 0 ? nullptr : &tokens_[index_by_id_[id]];
  auto it = std::lower_bound(sparse_index_.begin(), sparse_index_.end(), id, [](const auto& e, std::int32_t v) { return e.first < v; });
  return it == sparse_index_.end() || it->first != id ? nullptr : &tokens_[it->second];
}

bool AddedVocabulary::is_special(std::int32_t id) const {
  const AddedToken* t = by_id(id);
  return t && t->special;
}

bool AddedVocabulary::is_special_content(std::string_view content) const {
  std::int32_t id = by_content_.find(content);
  return id >= 0 && is_special(id);
}

// (start, (stop, id)) of each accepted match, in order.
std::vector<std::pair<std::size_t, std::pair<std::size_t, std::int32_t>>> AddedVocabulary::find_matches(
    std::string_view s, const Matcher& m) const {
  std::vector<std::pair<std::size_t, std::pair<std::size_t, std::int32_t>>> out;
  std::size_t start_offset = 0;
  for (std::size_t i = 0; i < s.size();) {
    if (!m.first_byte[static_cast<unsigned char>(s[i])]) {
      ++i;
      continue;
    }
    std::size_t stop = 0;
    std::int32_t p = m.longest_at(s, i, &stop);
    if (p < 0) {
      ++i;
      continue;
    }
    std::size_t start = i;
    i = stop;  // matches do not overlap
    std::int32_t id = m.ids[p];
    const AddedToken& t = *by_id(id);
    if (t.single_word && ((start > 0 && ends_with_word(s.substr(0, start))) ||
                          (stop < s.size() && starts_with_word(s.substr(stop)))))
      continue;
    if (t.lstrip) {
      std::size_t k = start;
      while (k > 0) {
        std::size_t j = k;
        if (!is_whitespace(prev_char(s, j))) break;
        k = j;
      }
      start = std::max(k, start_offset);
    }
    if (t.rstrip) {
      while (stop < s.size()) {
        std::size_t j = stop;
        if (!is_whitespace(next_char(s, j))) break;
        stop = j;
      }
    }
    out.push_back({start, {stop, id}});
    start_offset = stop;
  }
  return out;
}

void AddedVocabulary::split(Piece piece, bool normalized, std::vector<Piece>& out) const {
  const Matcher& m = normalized ? normalized_ : raw_;
  if (m.patterns.empty() || piece.text.empty()) {
    if (!piece.text.empty()) out.push_back(std::move(piece));
    return;
  }
  std::size_t prev = 0;
  for (const auto& [start, rest] : find_matches(piece.text, m)) {
    auto [stop, id] = rest;
    if (start > prev) out.push_back(piece.slice(prev, start));
    Piece t = piece.slice(std::min(start, stop), stop);
    t.token = id;
    out.push_back(std::move(t));
    prev = std::max(prev, stop);
  }
  if (prev < piece.text.size()) out.push_back(piece.slice(prev, piece.text.size()));
}

}  // namespace ogai::tokenizer
