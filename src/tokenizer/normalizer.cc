#include "tokenizer/normalizer.h"

#include <vector>

#include "base/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/cancel.h"
#include "tokenizer/regex.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

// Rewrites each character through f(c, at, builder).
template <typename F>
void map_chars(Piece& piece, F&& f) {
  TextBuilder b(piece);
  std::string_view s = piece.text;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t at = i;
    char32_t c = next_char(s, i);
    f(c, at, b);
  }
  piece = b.finish();
}

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(NormalForm form) : form_(form) {}
  void normalize(Piece& piece) const override {
    std::string out = normalize_form(piece.text, form_);
    if (!piece.origin.empty() && out != piece.text) {
      // Origins are approximated: each output byte takes the origin of the input byte at the same
      // index (clamped). Only a piece's first origin is ever read (Metaspace "first").
      std::vector<std::uint32_t> origin(out.size());
      for (std::size_t i = 0; i < out.size(); ++i) origin[i] = piece.origin[std::min(i, piece.origin.size() - 1)];
      piece.origin = std::move(origin);
    }
    piece.text = std::move(out);
  }

 private:
  NormalForm form_;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(Piece& piece) const override {
    map_chars(piece, [](char32_t c, std::size_t at, TextBuilder& b) {
      std::string lower;
      append_lowercase(lower, c);
      b.push_bytes(lower, at);
    });
  }
};

class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void normalize(Piece& piece) const override {
    std::string_view s = piece.text;
    std::size_t begin = 0, end = s.size();
    if (left_) {
      while (begin < end) {
        std::size_t k = begin;
        if (!is_whitespace(next_char(s, k))) break;
        begin = k;
      }
    }
    if (right_) {
      while (end > begin) {
        std::size_t k = end;
        if (!is_whitespace(prev_char(s, k))) break;
        end = k;
      }
    }
    piece = piece.slice(begin, end);
  }

 private:
  bool left_, right_;
};

// Removes combining marks: every Mark (Mn, Mc, Me) for the StripAccents normalizer, only
// nonspacing marks (Mn) inside BertNormalizer.
class StripMarks final : public Normalizer {
 public:
  explicit StripMarks(bool nonspacing_only) : nonspacing_only_(nonspacing_only) {}
  void normalize(Piece& piece) const override {
    map_chars(piece, [this](char32_t c, std::size_t at, TextBuilder& b) {
      if (!(nonspacing_only_ ? is_mark_nonspacing(c) : is_mark(c))) b.push(c, at);
    });
  }

 private:
  bool nonspacing_only_;
};

class Replace final : public Normalizer {
 public:
  Replace(std::string regex, std::string content, const std::string& where)
      : regex_(regex, where), content_(std::move(content)) {}
  void normalize(Piece& piece) const override {
    auto matches = regex_.find_all(piece.text);
    if (matches.empty()) return;
    TextBuilder b(piece);
    std::size_t prev = 0;
    for (auto [s, e] : matches) {
      check_cancelled();
      for (std::size_t i = prev; i < s;) {
        std::size_t at = i;
        b.push(next_char(piece.text, i), at);
      }
      if (!content_.empty()) b.push_bytes(content_, s < piece.text.size() ? s : (s ? s - 1 : 0));
      prev = e;
    }
    for (std::size_t i = prev; i < piece.text.size();) {
      std::size_t at = i;
      b.push(next_char(piece.text, i), at);
    }
    piece = b.finish();
  }

 private:
  Regex regex_;
  std::string content_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(Piece& piece) const override {
    if (piece.text.empty()) return;
    if (!piece.origin.empty()) piece.origin.insert(piece.origin.begin(), prefix_.size(), piece.origin.front());
    piece.text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class BertNormalizer final : public Normalizer {
 public:
  BertNormalizer(bool clean, bool chinese, bool strip_accents, bool lowercase)
      : clean_(clean), chinese_(chinese), strip_accents_(strip_accents), lowercase_(lowercase) {}
  void normalize(Piece& piece) const override {
    if (clean_) {
      map_chars(piece, [](char32_t c, std::size_t at, TextBuilder& b) {
        if (c == 0 || c == 0xFFFD) return;
        bool tab_or_newline = c == '\t' || c == '\n' || c == '\r';
        if (!tab_or_newline && is_bert_control(c)) return;
        b.push(tab_or_newline || is_whitespace(c) ? U' ' : c, at);
      });
    }
    if (chinese_) {
      map_chars(piece, [](char32_t c, std::size_t at, TextBuilder& b) {
        bool cjk = is_chinese_char(c);
        if (cjk) b.push(U' ', at);
        b.push(c, at);
        if (cjk) b.push(U' ', at);
      });
    }
    if (strip_accents_) {
      UnicodeNormalizer(NormalForm::kNFD).normalize(piece);
      StripMarks(true).normalize(piece);
    }
    if (lowercase_) Lowercase().normalize(piece);
  }

 private:
  bool clean_, chinese_, strip_accents_, lowercase_;
};

class ByteLevelNormalizer final : public Normalizer {
 public:
  void normalize(Piece& piece) const override {
    TextBuilder b(piece);
    for (std::size_t i = 0; i < piece.text.size(); ++i)
      b.push(byte_to_char(static_cast<unsigned char>(piece.text[i])), i);
    piece = b.finish();
  }
};

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  void normalize(Piece& piece) const override {
    for (const auto& n : parts_) n->normalize(piece);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

std::unique_ptr<Normalizer> make_sequence(const JsonValue& v) {
  std::vector<std::unique_ptr<Normalizer>> parts;
  for (const JsonValue& item : v.at("normalizers").items())
    if (auto n = make_normalizer(item)) parts.push_back(std::move(n));
  return std::make_unique<SequenceNormalizer>(std::move(parts));
}

std::unique_ptr<Normalizer> make_bert(const JsonValue& v) {
  bool lowercase = v.bool_or("lowercase", true);
  auto strip = v.find("strip_accents");
  bool strip_accents = strip && !strip->is_null() ? strip->as_bool() : lowercase;
  return std::make_unique<BertNormalizer>(v.bool_or("clean_text", true), v.bool_or("handle_chinese_chars", true),
                                          strip_accents, lowercase);
}

std::string decode_base64(std::string_view in, const JsonValue& where) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  unsigned bits = 0;
  int nbits = 0;
  for (char c : in) {
    if (c == '=') break;
    int v = value(c);
    if (v < 0) where.fail_invalid("precompiled_charsmap is not base64");
    bits = (bits << 6) | static_cast<unsigned>(v);
    nbits += 6;
    if (nbits >= 8) {
      nbits -= 8;
      out.push_back(static_cast<char>((bits >> nbits) & 0xFF));
    }
  }
  return out;
}

}  // namespace

std::string pattern_regex(const JsonValue& pattern) {
  if (auto s = pattern.find("String")) return regex_escape(s->as_string());
  if (auto r = pattern.find("Regex")) return std::string(r->as_string());
  pattern.fail_invalid("expected a pattern {\"String\": ...} or {\"Regex\": ...}");
}

std::unique_ptr<Normalizer> make_normalizer(const JsonValue& v) {
  if (v.is_null()) return nullptr;
  std::string type(v.at("type").as_string());
  if (type == "Sequence") return make_sequence(v);
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(NormalForm::kNFC);
  if (type == "NFD") return std::make_unique<UnicodeNormalizer>(NormalForm::kNFD);
  if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(NormalForm::kNFKC);
  if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(NormalForm::kNFKD);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Strip") return std::make_unique<Strip>(v.bool_or("strip_left", true), v.bool_or("strip_right", true));
  if (type == "StripAccents") return std::make_unique<StripMarks>(false);
  if (type == "Replace")
    return std::make_unique<Replace>(pattern_regex(v.at("pattern")), v.string_or("content", ""),
                                     v.source() + ": " + v.path());
  if (type == "Prepend") return std::make_unique<Prepend>(std::string(v.at("prepend").as_string()));
  if (type == "BertNormalizer") return make_bert(v);
  if (type == "ByteLevel") return std::make_unique<ByteLevelNormalizer>();
  if (type == "Precompiled") {
    auto map = v.find("precompiled_charsmap");
    if (!map || map->is_null()) return nullptr;
    return make_precompiled(decode_base64(map->as_string(), *map), *map);
  }
  v.fail_unsupported("normalizer", type);
}

}  // namespace ogai::tokenizer
