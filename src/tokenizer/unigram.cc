// Unigram (SentencePiece) model: the best segmentation by total score (Viterbi over the pieces
// that prefix each position, found by walking a trie of the pieces: O(text x the longest match),
// not O(text x L^2) in the longest piece L), unknown characters scored min_score - 10 and fused
// into one unknown token, optional byte fallback; ties keep the first candidate found (shorter
// pieces first), as Hugging Face does.
#include <cmath>
#include <cstdio>
#include <limits>

#include "base/error.h"
#include "tokenizer/model.h"
#include "tokenizer/piece_trie.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

class Unigram final : public Model {
 public:
  explicit Unigram(const JsonValue& v) : byte_fallback_(v.bool_or("byte_fallback", false)) {
    JsonValue list = v.at("vocab");
    simdjson::dom::array items;
    if (list.raw().get_array().get(items)) list.fail_expected("an array of [piece, score] pairs");
    vocab_.reserve(items.size());
    scores_.reserve(items.size());
    double min_score = std::numeric_limits<double>::infinity();
    std::size_t i = 0;
    for (simdjson::dom::element item : items) {
      simdjson::dom::array entry;
      std::string_view piece;
      double score;
      if (item.get_array().get(entry) || entry.size() != 2 || entry.at(0).get_string().get(piece) ||
          entry.at(1).get_double().get(score))
        fail(ErrorCode::kParse, list.source(), "expected a [piece, score] pair at {}[{}]", list.path(), i);
      trie_.insert(piece, static_cast<std::int32_t>(i));
      vocab_.set(piece, static_cast<std::int32_t>(i++));
      scores_.push_back(score);
      min_score = std::min(min_score, score);
    }
    vocab_.finish();
    unk_score_ = min_score - 10.0;
    auto unk = v.find("unk_id");
    if (unk && !unk->is_null()) {
      unk_id_ = unk->as_int();
      if (unk_id_ < 0 || static_cast<std::size_t>(unk_id_) >= scores_.size()) unk->fail_invalid("unk_id is not in the vocabulary");
    }
    for (int b = 0; b < 256; ++b) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<0x%02X>", b);
      byte_tokens_[b] = vocab_.find(buf);
    }
  }

  void tokenize(std::string_view s, std::vector<std::int32_t>& ids) const override {
    for (auto [begin, end] : segment(s)) emit(s.substr(begin, end - begin), ids);
  }

 private:
  struct Node {
    double score = 0;
    std::int64_t starts_at = -1;
    std::int32_t id = -1;
  };

  std::vector<std::pair<std::size_t, std::size_t>> segment(std::string_view s) const {
    std::vector<Node> best(s.size() + 1);
    for (std::size_t start = 0; start < s.size();) {
      double base = best[start].score;
      std::size_t mblen = utf8_len(static_cast<unsigned char>(s[start]));
      bool single = false;
      trie_.prefixes(s, start, [&](std::size_t end, std::int32_t id) {
        if (end < s.size() && is_continuation_byte(s[end])) return;  // pieces end on characters
        relax(best[end], base + scores_[id], start, id);
        single |= end - start == mblen;
      });
      if (!single) {
        if (unk_id_ < 0) fail(ErrorCode::kInvalidPackage, "tokenizer", "the Unigram model has no unk_id for unknown text");
        relax(best[start + mblen], base + unk_score_, start, static_cast<std::int32_t>(unk_id_));
      }
      start += mblen;
    }
    std::vector<std::pair<std::size_t, std::size_t>> out;
    std::size_t fused_end = 0;
    bool fusing = false;
    for (std::size_t end = s.size(); end > 0;) {
      const Node& n = best[end];
      std::size_t start = static_cast<std::size_t>(n.starts_at);
      if (n.id == unk_id_) {
        if (!fusing) fused_end = end, fusing = true;
      } else {
        if (fusing) out.emplace_back(end, fused_end), fusing = false;
        out.emplace_back(start, end);
      }
      end = start;
    }
    if (fusing) out.emplace_back(0, fused_end);
    return {out.rbegin(), out.rend()};
  }

  static bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

  static void relax(Node& target, double score, std::size_t start, std::int32_t id) {
    if (target.starts_at < 0 || score > target.score) {
      target.score = score;
      target.starts_at = static_cast<std::int64_t>(start);
      target.id = id;
    }
  }

  void emit(std::string_view piece, std::vector<std::int32_t>& ids) const {
    if (std::int32_t id = vocab_.find(piece); id >= 0) {
      ids.push_back(id);
      return;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char c : piece) all &= byte_tokens_[static_cast<unsigned char>(c)] >= 0;
      if (all) {
        for (char c : piece) ids.push_back(byte_tokens_[static_cast<unsigned char>(c)]);
        return;
      }
    }
    if (unk_id_ < 0) fail(ErrorCode::kInvalidPackage, "tokenizer", "the Unigram model has no unk_id for unknown text");
    ids.push_back(static_cast<std::int32_t>(unk_id_));
  }

  std::vector<double> scores_;
  std::int64_t unk_id_ = -1;
  double unk_score_ = 0;
  PieceTrie trie_;
  bool byte_fallback_;
  std::int32_t byte_tokens_[256];
};

}  // namespace

std::unique_ptr<Model> make_unigram(const JsonValue& value) { return std::make_unique<Unigram>(value); }

}  // namespace ogai::tokenizer
