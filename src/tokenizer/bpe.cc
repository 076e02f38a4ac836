#include "tokenizer/bpe.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/cancel.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

struct Merge {
  std::uint32_t rank;
  std::int32_t pos;
  std::int32_t id;
};
// std heap is a max-heap: "greater" means lower rank, then lower position.
inline bool merge_less(const Merge& a, const Merge& b) {
  return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
}

std::string byte_token(unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "<0x%02X>", b);
  return buf;
}

}  // namespace

Bpe::Bpe(const JsonValue& v) {
  options_.unk_token = v.optional_string("unk_token");
  options_.continuing_subword_prefix = v.string_or("continuing_subword_prefix", "");
  options_.end_of_word_suffix = v.string_or("end_of_word_suffix", "");
  options_.fuse_unk = v.bool_or("fuse_unk", false);
  options_.byte_fallback = v.bool_or("byte_fallback", false);
  options_.ignore_merges = v.bool_or("ignore_merges", false);
  read_vocab_object(v.at("vocab"), vocab_);
  read_merges(v.at("merges"));
  byte_level_ok_ = options_.continuing_subword_prefix.empty() && options_.end_of_word_suffix.empty();
  for (int b = 0; b < 256; ++b) {
    byte_tokens_[b] = vocab_.find(byte_token(static_cast<unsigned char>(b)));
    byte_level_ids_[b] = vocab_.find(byte_char_utf8(static_cast<std::uint8_t>(b)));
    if (byte_level_ids_[b] < 0) byte_level_ok_ = false;
  }
}

void Bpe::read_merges(const JsonValue& merges) {
  simdjson::dom::array arr;
  if (merges.raw().get_array().get(arr)) merges.fail_expected("an array of merges");
  merges_.reserve(arr.size());
  // Merges are resolved in batches so that the vocabulary lookups overlap in memory.
  constexpr std::size_t kBatch = 20;
  std::string_view keys[3 * kBatch];
  std::string merged[kBatch];
  std::int32_t ids[3 * kBatch];
  std::size_t n = 0;
  std::uint32_t rank = 0, first_rank = 0;
  auto flush = [&] {
    vocab_.find_many(keys, 3 * n, ids);
    for (std::size_t i = 0; i < n; ++i) merges_.prefetch(ids[3 * i], ids[3 * i + 1]);
    for (std::size_t i = 0; i < n; ++i)
      add_merge(keys[3 * i], keys[3 * i + 1], ids + 3 * i, first_rank + static_cast<std::uint32_t>(i), merges);
    first_rank += static_cast<std::uint32_t>(n);
    n = 0;
  };
  for (simdjson::dom::element e : arr) {
    std::string_view line, a, b;
    simdjson::dom::array pair;
    bool ok = false;
    if (!e.get_string().get(line)) {
      ok = split_merge(line, &a, &b);
    } else if (!e.get_array().get(pair) && pair.size() == 2) {
      ok = !pair.at(0).get_string().get(a) && !pair.at(1).get_string().get(b);
    }
    if (!ok)
      fail(ErrorCode::kParse, merges.source(), "expected a merge \"a b\" or [\"a\", \"b\"] at {}[{}]",
           merges.path(), rank);
    std::string_view tail = b;
    const std::string& prefix = options_.continuing_subword_prefix;
    if (!prefix.empty() && tail.starts_with(prefix)) tail.remove_prefix(prefix.size());
    merged[n].assign(a);
    merged[n].append(tail);
    keys[3 * n] = a, keys[3 * n + 1] = b, keys[3 * n + 2] = merged[n];
    ++rank;
    if (++n == kBatch) flush();
  }
  flush();
}

// "a b" -> (a, b). A line with several spaces (tokens that contain spaces, as in some converted
// SentencePiece files that Hugging Face's Rust library refuses) is split where a, b and a+b are
// all in the vocabulary, when exactly one such split exists.
bool Bpe::split_merge(std::string_view line, std::string_view* a, std::string_view* b) const {
  std::size_t first = line.find(' ');
  if (first == std::string_view::npos) return false;
  if (line.find(' ', first + 1) == std::string_view::npos) {
    *a = line.substr(0, first), *b = line.substr(first + 1);
    return true;
  }
  int found = 0;
  for (std::size_t at = first; at != std::string_view::npos; at = line.find(' ', at + 1)) {
    std::string_view x = line.substr(0, at), y = line.substr(at + 1);
    if (vocab_.find(x) >= 0 && vocab_.find(y) >= 0 && vocab_.find(std::string(x) + std::string(y)) >= 0)
      *a = x, *b = y, ++found;
  }
  return found == 1;
}

// ids: the ids of a, b and their merge (-1 when absent).
void Bpe::add_merge(std::string_view a, std::string_view b, const std::int32_t* ids, std::uint32_t rank,
                    const JsonValue& where) {
  if (ids[0] < 0 || ids[1] < 0 || ids[2] < 0) {
    std::string missing = ids[0] < 0 ? std::string(a) : ids[1] < 0 ? std::string(b) : std::string(a) + std::string(b);
    fail(ErrorCode::kInvalidPackage, where.source(), "merge {} at {}[{}] uses '{}', which is not in model.vocab",
         rank, where.path(), rank, missing);
  }
  merges_.insert(ids[0], ids[1], {rank, ids[2]});
}

std::int32_t Bpe::unk_id(const std::string& unk) const {
  std::int32_t id = vocab_.find(unk);
  if (id < 0) fail(ErrorCode::kInvalidPackage, "tokenizer", "the BPE unk_token '{}' is not in the vocabulary", unk);
  return id;
}

void Bpe::build_symbols(std::string_view w, std::vector<Symbol>& syms) const {
  std::string s;
  std::int32_t pending_id = -1;
  std::uint32_t pending_len = 0;
  auto add = [&](std::int32_t id, std::uint32_t len) {
    std::int32_t n = static_cast<std::int32_t>(syms.size());
    syms.push_back({id, n - 1, -1, len});
    if (n > 0) syms[n - 1].next = n;
  };
  for (std::size_t i = 0; i < w.size();) {
    check_cancelled();
    std::size_t start = i;
    i += utf8_len(static_cast<unsigned char>(w[i]));
    std::uint32_t byte_len = static_cast<std::uint32_t>(i - start);
    s.clear();
    if (start > 0) s += options_.continuing_subword_prefix;
    s.append(w.substr(start, byte_len));
    if (i >= w.size()) s += options_.end_of_word_suffix;
    if (std::int32_t id = vocab_.find(s); id >= 0) {
      if (pending_id >= 0) add(pending_id, pending_len), pending_id = -1;
      add(id, byte_len);
      continue;
    }
    if (options_.byte_fallback &&
        std::all_of(s.begin(), s.end(), [&](char c) { return byte_tokens_[static_cast<unsigned char>(c)] >= 0; })) {
      for (char c : s) add(byte_tokens_[static_cast<unsigned char>(c)], 1);
      continue;
    }
    if (!options_.unk_token) continue;
    if (pending_id >= 0 && options_.fuse_unk) {
      pending_len += byte_len;
    } else {
      if (pending_id >= 0) add(pending_id, pending_len);
      pending_id = unk_id(*options_.unk_token);
      pending_len = byte_len;
    }
  }
  if (pending_id >= 0) add(pending_id, pending_len);
}

void Bpe::merge(std::vector<Symbol>& syms, std::vector<std::int32_t>& ids) const {
  thread_local std::vector<Merge> heap;
  heap.clear();
  for (std::size_t i = 0; i + 1 < syms.size(); ++i)
    if (const auto* m = merges_.find(syms[i].id, syms[i + 1].id))
      heap.push_back({m->rank, static_cast<std::int32_t>(i), m->id});
  std::make_heap(heap.begin(), heap.end(), merge_less);
  while (!heap.empty()) {
    check_cancelled();
    std::pop_heap(heap.begin(), heap.end(), merge_less);
    Merge top = heap.back();
    heap.pop_back();
    Symbol& cur = syms[top.pos];
    if (cur.len == 0 || cur.next < 0) continue;
    Symbol right = syms[cur.next];
    const auto* m = merges_.find(cur.id, right.id);
    if (!m || m->id != top.id) continue;
    syms[cur.next].len = 0;
    cur.id = top.id;
    cur.len += right.len;
    cur.next = right.next;
    if (right.next >= 0) syms[right.next].prev = top.pos;
    if (cur.prev >= 0) {
      if (const auto* p = merges_.find(syms[cur.prev].id, cur.id)) {
        heap.push_back({p->rank, cur.prev, p->id});
        std::push_heap(heap.begin(), heap.end(), merge_less);
      }
    }
    if (cur.next >= 0) {
      if (const auto* n = merges_.find(cur.id, syms[cur.next].id)) {
        heap.push_back({n->rank, top.pos, n->id});
        std::push_heap(heap.begin(), heap.end(), merge_less);
      }
    }
  }
  for (const Symbol& s : syms)
    if (s.len != 0) ids.push_back(s.id);
  release_if_large(heap);
}

void Bpe::tokenize(std::string_view piece, std::vector<std::int32_t>& ids) const {
  if (piece.empty()) return;
  if (options_.ignore_merges) {
    if (std::int32_t id = vocab_.find(piece); id >= 0) {
      ids.push_back(id);
      return;
    }
  }
  check_cancelled();
  thread_local std::vector<Symbol> syms;
  syms.clear();
  build_symbols(piece, syms);
  merge(syms, ids);
  release_if_large(syms);
}

void Bpe::tokenize_bytes(std::string_view raw, std::vector<std::int32_t>& ids) const {
  if (raw.empty()) return;
  check_cancelled();
  if (raw.size() == 1) {
    ids.push_back(byte_level_ids_[static_cast<std::uint8_t>(raw[0])]);
    return;
  }
  if (options_.ignore_merges) {
    thread_local std::string text;
    text.clear();
    append_byte_level(text, raw);
    if (std::int32_t id = vocab_.find(text); id >= 0) {
      ids.push_back(id);
      return;
    }
  }
  thread_local std::vector<Symbol> syms;
  syms.resize(raw.size());
  std::int32_t n = static_cast<std::int32_t>(raw.size());
  for (std::int32_t i = 0; i < n; ++i)
    syms[i] = {byte_level_ids_[static_cast<std::uint8_t>(raw[i])], i - 1, i + 1 < n ? i + 1 : -1, 1};
  merge(syms, ids);
  release_if_large(syms);
}

}  // namespace ogai::tokenizer
