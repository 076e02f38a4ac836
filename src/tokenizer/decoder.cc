#include "tokenizer/decoder.h"

#include "base/error.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/regex.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  std::string out;
  std::size_t prev = 0;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + from.size())) {
    out.append(s, prev, at - prev);
    out.append(to);
    prev = at + from.size();
  }
  if (prev == 0) return;
  out.append(s, prev);
  s = std::move(out);
}

// The clean-up of WordPiece and CTC: no space before punctuation and English contractions.
void cleanup(std::string& s) {
  static const std::pair<std::string_view, std::string_view> kRules[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (auto [from, to] : kRules) replace_all(s, from, to);
}

class ByteLevelDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    std::string bytes;
    for (const std::string& t : tokens) {
      std::size_t mark = bytes.size();
      if (!byte_level_to_bytes(t, bytes)) bytes.resize(mark), bytes += t;
    }
    tokens.assign(1, utf8_lossy(bytes));
    st.joined = true;
  }
};

class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, bool strip_first) : rep_(std::move(replacement)), strip_first_(strip_first) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i)
      replace_all(tokens[i], rep_, i + st.index_offset == 0 && strip_first_ ? "" : " ");
  }

 private:
  std::string rep_;
  bool strip_first_;
};

class ByteFallbackDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens, ChainState&) const override {
    std::vector<std::string> out;
    std::string bytes;
    std::size_t count = 0;
    auto flush = [&] {
      if (count == 0) return;
      if (!find_invalid_utf8(bytes)) out.push_back(bytes);
      else out.insert(out.end(), count, "\xEF\xBF\xBD");
      bytes.clear();
      count = 0;
    };
    for (std::string& t : tokens) {
      unsigned char b;
      if (parse_byte_token(t, &b)) {
        bytes.push_back(static_cast<char>(b));
        ++count;
        continue;
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    tokens = std::move(out);
  }
  bool uses_byte_fallback() const override { return true; }
};

class FuseDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
    st.joined = true;
  }
};

class StripDecoder final : public Decoder {
 public:
  StripDecoder(std::string content, std::size_t start, std::size_t stop)
      : content_(std::move(content)), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      bool continuation = st.joined && st.index_offset > 0;
      std::size_t begin = 0, end = t.size();
      for (std::size_t k = 0; k < start_ && !continuation && std::string_view(t).substr(begin).starts_with(content_); ++k)
        begin += content_.size();
      for (std::size_t k = 0; k < stop_ && end >= begin + content_.size() &&
                              std::string_view(t).substr(0, end).ends_with(content_);
           ++k)
        end -= content_.size();
      t = t.substr(begin, end > begin ? end - begin : 0);
    }
  }
  bool strips_end() const override { return stop_ > 0; }

 private:
  std::string content_;
  std::size_t start_, stop_;
};

class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(const std::string& regex, std::string content, const std::string& where)
      : regex_(regex, where), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState&) const override {
    for (std::string& t : tokens) {
      auto matches = regex_.find_all(t);
      if (matches.empty()) continue;
      std::string out;
      std::size_t prev = 0;
      for (auto [s, e] : matches) out.append(t, prev, s - prev), out += content_, prev = e;
      out.append(t, prev);
      t = std::move(out);
    }
  }

 private:
  Regex regex_;
  std::string content_;
};

class WordPieceDecoder final : public Decoder {
 public:
  WordPieceDecoder(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i + st.index_offset != 0) {
        if (t.starts_with(prefix_)) t.erase(0, prefix_.size());
        else t.insert(0, 1, ' ');
      }
      if (cleanup_) cleanup(t);
    }
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

class BpeDecoder final : public Decoder {
 public:
  explicit BpeDecoder(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    for (std::size_t i = 0; i < tokens.size(); ++i)
      replace_all(tokens[i], suffix_, i + 1 == tokens.size() && st.final ? "" : " ");
  }
  bool depends_on_last() const override { return true; }

 private:
  std::string suffix_;
};

class CtcDecoder final : public Decoder {
 public:
  CtcDecoder(std::string pad, std::string delimiter, bool cleanup)
      : pad_(std::move(pad)), delimiter_(std::move(delimiter)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    std::vector<std::string> out;
    const std::string* last = st.prev;
    for (const std::string& t : tokens) {
      bool duplicate = last && *last == t;
      last = &t;
      if (duplicate) continue;
      std::string r = t;
      replace_all(r, pad_, "");
      if (cleanup_) cleanup(r), replace_all(r, delimiter_, " ");
      if (!r.empty()) out.push_back(std::move(r));
    }
    tokens = std::move(out);
  }

 private:
  std::string pad_, delimiter_;
  bool cleanup_;
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts) : parts_(std::move(parts)) {}
  void decode_chain(std::vector<std::string>& tokens, ChainState& st) const override {
    for (const auto& d : parts_) d->decode_chain(tokens, st);
  }
  bool uses_byte_fallback() const override {
    for (const auto& d : parts_)
      if (d->uses_byte_fallback()) return true;
    return false;
  }
  bool strips_end() const override {
    for (const auto& d : parts_)
      if (d->strips_end()) return true;
    return false;
  }
  bool depends_on_last() const override {
    for (const auto& d : parts_)
      if (d->depends_on_last()) return true;
    return false;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

std::unique_ptr<Decoder> make_metaspace_decoder(const JsonValue& v) {
  std::string rep(v.at("replacement").as_string());
  bool strip_first = true;
  if (auto s = v.find("prepend_scheme"); s && !s->is_null()) strip_first = s->as_string() != "never";
  else strip_first = v.bool_or("add_prefix_space", true);
  return std::make_unique<MetaspaceDecoder>(rep, strip_first);
}

}  // namespace

bool parse_byte_token(std::string_view t, unsigned char* byte) {
  if (t.size() != 6 || !t.starts_with("<0x") || t[5] != '>') return false;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  int hi = hex(t[3]), lo = hex(t[4]);
  if (t[3] == '+' && lo >= 0) hi = 0;  // Rust's from_str_radix accepts a leading '+'
  if (hi < 0 || lo < 0) return false;
  *byte = static_cast<unsigned char>(hi * 16 + lo);
  return true;
}

std::unique_ptr<Decoder> make_decoder(const JsonValue& v) {
  if (v.is_null()) return nullptr;
  std::string type(v.at("type").as_string());
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Decoder>> parts;
    for (const JsonValue& item : v.at("decoders").items())
      if (auto d = make_decoder(item)) parts.push_back(std::move(d));
    return std::make_unique<SequenceDecoder>(std::move(parts));
  }
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Metaspace") return make_metaspace_decoder(v);
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "Strip")
    return std::make_unique<StripDecoder>(std::string(v.at("content").as_string()),
                                          static_cast<std::size_t>(v.int_or("start", 0)),
                                          static_cast<std::size_t>(v.int_or("stop", 0)));
  if (type == "Replace")
    return std::make_unique<ReplaceDecoder>(pattern_regex(v.at("pattern")), v.string_or("content", ""),
                                            v.source() + ": " + v.path());
  if (type == "WordPiece") return std::make_unique<WordPieceDecoder>(v.string_or("prefix", "##"), v.bool_or("cleanup", true));
  if (type == "BPEDecoder") return std::make_unique<BpeDecoder>(v.string_or("suffix", "</w>"));
  if (type == "CTC")
    return std::make_unique<CtcDecoder>(v.string_or("pad_token", "<pad>"), v.string_or("word_delimiter_token", "|"),
                                        v.bool_or("cleanup", true));
  v.fail_unsupported("decoder", type);
}

}  // namespace ogai::tokenizer
