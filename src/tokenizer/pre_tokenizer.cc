#include "tokenizer/pre_tokenizer.h"

#include <unicode/uscript.h>

#include "base/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {

std::unique_ptr<PreTokenizer> make_metaspace(const JsonValue& value);  // metaspace.cc

namespace {

// Applies split(piece, out) to every text piece; added-token pieces pass through.
template <typename F>
void each_text_piece(std::vector<Piece>& pieces, F&& split) {
  std::vector<Piece> out;
  out.reserve(pieces.size() * 2);
  for (Piece& p : pieces) {
    if (p.token >= 0) out.push_back(std::move(p));
    else split(p, out);
  }
  pieces = std::move(out);
}

// The partition of `text` where each character satisfying `pred` is its own match.
template <typename Pred>
std::vector<Span> char_spans(std::string_view text, Pred&& pred) {
  if (text.empty()) return {{0, 0, false}};
  std::vector<Span> spans;
  std::size_t last = 0;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t b = i;
    char32_t c = next_char(text, i);
    if (!pred(c)) continue;
    if (last < b) spans.push_back({last, b, false});
    spans.push_back({b, i, true});
    last = i;
  }
  if (last < text.size()) spans.push_back({last, text.size(), false});
  return spans;
}

SplitBehavior parse_behavior(const JsonValue& v, SplitBehavior fallback) {
  auto b = v.find("behavior");
  if (!b || b->is_null()) return fallback;
  std::string_view s = b->as_string();
  if (s == "Removed") return SplitBehavior::kRemoved;
  if (s == "Isolated") return SplitBehavior::kIsolated;
  if (s == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (s == "Contiguous") return SplitBehavior::kContiguous;
  b->fail_unsupported("split behavior", s);
}

template <typename Pred>
class CharSplit final : public PreTokenizer {
 public:
  CharSplit(Pred pred, SplitBehavior behavior) : pred_(pred), behavior_(behavior) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      split_piece(p, char_spans(p.text, pred_), behavior_, out);
    });
  }

 private:
  Pred pred_;
  SplitBehavior behavior_;
};

template <typename Pred>
std::unique_ptr<PreTokenizer> char_split(Pred pred, SplitBehavior behavior) {
  return std::make_unique<CharSplit<Pred>>(pred, behavior);
}

class Split final : public PreTokenizer {
 public:
  Split(std::string regex, SplitBehavior behavior, bool invert, const std::string& where)
      : scanner_(find_scanner(regex)), behavior_(behavior), invert_(invert) {
    if (!scanner_) regex_ = std::make_unique<Regex>(regex, where);
  }
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      Matches m;
      if (scanner_) scanner_(p.text, m);
      else m = regex_->find_all(p.text);
      std::vector<Span> spans = spans_from_matches(m, p.text.size());
      if (invert_)
        for (Span& s : spans) s.is_match = !s.is_match;
      split_piece(p, spans, behavior_, out);
    });
  }

 private:
  Scanner scanner_;
  std::unique_ptr<Regex> regex_;  // only when no scanner matches the pattern
  SplitBehavior behavior_;
  bool invert_;
};

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      if (add_prefix_space_ && !p.text.starts_with(' ')) {
        if (!p.origin.empty()) p.origin.insert(p.origin.begin(), p.origin.front());
        p.text.insert(0, 1, ' ');
      }
      Matches m;
      if (use_regex_) scan_gpt2(p.text, m);
      else m.emplace_back(0, p.text.size());
      for (auto [s, e] : m) {
        if (s == e) continue;
        Piece q;
        append_byte_level(q.text, std::string_view(p.text).substr(s, e - s));
        if (!p.origin.empty()) q.origin.assign(q.text.size(), p.origin[s]);
        out.push_back(std::move(q));
      }
    });
  }

 private:
  bool add_prefix_space_, use_regex_;
};

// \w+|[^\w\s]+ (the regex crate's Unicode classes), keeping only the matches.
class Whitespace final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      std::string_view s = p.text;
      int kind = 0, run_kind = 0;  // 1 word, 2 other, 0 whitespace
      std::size_t run_start = 0;
      for (std::size_t i = 0; i <= s.size();) {
        std::size_t at = i;
        if (i < s.size()) {
          char32_t c = next_char(s, i);
          kind = is_word_char(c) ? 1 : is_whitespace(c) ? 0 : 2;
        } else {
          kind = -1, ++i;
        }
        if (kind == run_kind) continue;
        if (run_kind > 0 && at > run_start) out.push_back(p.slice(run_start, at));
        run_kind = kind;
        run_start = at;
      }
    });
  }
};

class UnicodeScripts final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    constexpr int kAny = -1, kNone = -2;
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      std::vector<std::size_t> cuts;  // where a new script starts (a leading space is dropped, as in HF)
      int last = kNone;
      std::string_view s = p.text;
      for (std::size_t i = 0; i < s.size();) {
        std::size_t at = i;
        char32_t c = next_char(s, i);
        int script = c == 0x30FC ? USCRIPT_HAN : fixed(script_of(c));
        if (script != kAny && last != kAny && last != script) cuts.push_back(at);
        if (script != kAny) last = script;
      }
      cuts.push_back(s.size());
      for (std::size_t k = 0; k + 1 < cuts.size(); ++k)
        if (cuts[k + 1] > cuts[k]) out.push_back(p.slice(cuts[k], cuts[k + 1]));
    });
  }

 private:
  static int fixed(int script) { return script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA ? USCRIPT_HAN : script; }
};

class FixedLength final : public PreTokenizer {
 public:
  explicit FixedLength(std::size_t length) : length_(length) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      std::size_t start = 0, count = 0;
      for (std::size_t i = 0; i < p.text.size();) {
        i += utf8_len(static_cast<unsigned char>(p.text[i]));
        if (++count == length_ || i == p.text.size()) out.push_back(p.slice(start, i)), start = i, count = 0;
      }
    });
  }

 private:
  std::size_t length_;
};

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    for (const auto& p : parts_) p->pre_tokenize(pieces);
  }
  bool needs_origins() const override {
    for (const auto& p : parts_)
      if (p->needs_origins()) return true;
    return false;
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

class BertPreTokenizer final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    each_text_piece(pieces, [&](Piece& p, std::vector<Piece>& out) {
      std::vector<Piece> words;
      split_piece(p, char_spans(p.text, is_whitespace), SplitBehavior::kRemoved, words);
      for (const Piece& w : words) split_piece(w, char_spans(w.text, is_bert_punctuation), SplitBehavior::kIsolated, out);
    });
  }
};

std::unique_ptr<PreTokenizer> make_sequence(const JsonValue& v) {
  std::vector<std::unique_ptr<PreTokenizer>> parts;
  for (const JsonValue& item : v.at("pretokenizers").items())
    if (auto p = make_pre_tokenizer(item)) parts.push_back(std::move(p));
  return std::make_unique<SequencePreTokenizer>(std::move(parts));
}

char32_t single_char(const JsonValue& v, std::string_view key) {
  std::string_view s = v.at(key).as_string();
  std::size_t i = 0;
  char32_t c = s.empty() ? 0 : next_char(s, i);
  if (s.empty() || i != s.size()) v.at(key).fail_invalid("expected a single character");
  return c;
}

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonValue& v) {
  if (v.is_null()) return nullptr;
  std::string type(v.at("type").as_string());
  if (type == "Sequence") return make_sequence(v);
  if (type == "ByteLevel") return std::make_unique<ByteLevel>(v.bool_or("add_prefix_space", true), v.bool_or("use_regex", true));
  if (type == "Split")
    return std::make_unique<Split>(pattern_regex(v.at("pattern")), parse_behavior(v, SplitBehavior::kRemoved),
                                   v.bool_or("invert", false), v.source() + ": " + v.path());
  if (type == "Metaspace") return make_metaspace(v);
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "WhitespaceSplit") return char_split(is_whitespace, SplitBehavior::kRemoved);
  if (type == "Punctuation") return char_split(is_bert_punctuation, parse_behavior(v, SplitBehavior::kIsolated));
  if (type == "Digits")
    return char_split(is_numeric, v.bool_or("individual_digits", false) ? SplitBehavior::kIsolated : SplitBehavior::kContiguous);
  if (type == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  if (type == "UnicodeScripts") return std::make_unique<UnicodeScripts>();
  if (type == "CharDelimiterSplit") {
    char32_t d = single_char(v, "delimiter");
    return char_split([d](char32_t c) { return c == d; }, SplitBehavior::kRemoved);
  }
  if (type == "FixedLength") return std::make_unique<FixedLength>(static_cast<std::size_t>(v.int_or("length", 5)));
  v.fail_unsupported("pre-tokenizer", type);
}

std::optional<ByteLevelPlan> byte_level_plan(const JsonValue& v) {
  if (v.is_null()) return std::nullopt;
  std::string_view type = v.at("type").as_string();
  if (type == "ByteLevel") {
    if (v.bool_or("add_prefix_space", true)) return std::nullopt;
    ByteLevelPlan plan;
    plan.split = v.bool_or("use_regex", true);
    plan.scanner = plan.split ? scan_gpt2 : nullptr;
    return plan;
  }
  if (type != "Sequence") return std::nullopt;
  std::vector<JsonValue> parts = v.at("pretokenizers").items();
  if (parts.size() != 2 || parts[0].at("type").as_string() != "Split" ||
      parts[1].at("type").as_string() != "ByteLevel")
    return std::nullopt;
  const JsonValue& split = parts[0];
  const JsonValue& bl = parts[1];
  if (bl.bool_or("add_prefix_space", true) || bl.bool_or("use_regex", true)) return std::nullopt;
  if (split.bool_or("invert", false) || parse_behavior(split, SplitBehavior::kRemoved) != SplitBehavior::kIsolated)
    return std::nullopt;
  ByteLevelPlan plan;
  plan.split = true;
  std::string regex = pattern_regex(split.at("pattern"));
  plan.scanner = find_scanner(regex);
  if (!plan.scanner) plan.regex = std::make_shared<Regex>(regex, split.source() + ": " + split.path());
  return plan;
}

}  // namespace ogai::tokenizer
