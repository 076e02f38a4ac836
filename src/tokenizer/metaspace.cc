// The Metaspace pre-tokenizer: spaces become the replacement character (U+2581 by default), a
// replacement is prepended per prepend_scheme ("always"; "first": only to the piece that starts
// the input; "never"), and with split=true the text is split before each replacement.
#include "base/error.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/utf8.h"

namespace ogai::tokenizer {
namespace {

enum class Prepend { kAlways, kFirst, kNever };

class Metaspace final : public PreTokenizer {
 public:
  Metaspace(char32_t replacement, Prepend scheme, bool split)
      : replacement_(utf8(replacement)), scheme_(scheme), split_(split) {}

  void pre_tokenize(std::vector<Piece>& pieces) const override {
    std::vector<Piece> out;
    for (Piece& p : pieces) {
      if (p.token >= 0) {
        out.push_back(std::move(p));
        continue;
      }
      Piece q = replace_spaces(p);
      bool at_start = scheme_ == Prepend::kAlways || (scheme_ == Prepend::kFirst && q.start_origin() == 0);
      if (scheme_ != Prepend::kNever && at_start && !q.text.starts_with(replacement_) && !q.text.empty()) {
        if (!q.origin.empty()) q.origin.insert(q.origin.begin(), replacement_.size(), q.origin.front());
        q.text.insert(0, replacement_);
      }
      if (!split_) {
        if (!q.text.empty()) out.push_back(std::move(q));
        continue;
      }
      std::vector<Span> spans;
      std::size_t last = 0;
      for (std::size_t at = q.text.find(replacement_); at != std::string::npos;
           at = q.text.find(replacement_, at + replacement_.size())) {
        if (last < at) spans.push_back({last, at, false});
        spans.push_back({at, at + replacement_.size(), true});
        last = at + replacement_.size();
      }
      if (last < q.text.size() || spans.empty()) spans.push_back({last, q.text.size(), false});
      split_piece(q, spans, SplitBehavior::kMergedWithNext, out);
    }
    pieces = std::move(out);
  }

  bool needs_origins() const override { return scheme_ == Prepend::kFirst; }

 private:
  Piece replace_spaces(const Piece& p) const {
    if (p.text.find(' ') == std::string::npos) return p;
    Piece q;
    for (std::size_t i = 0; i < p.text.size(); ++i) {
      bool space = p.text[i] == ' ';
      if (space) q.text += replacement_;
      else q.text.push_back(p.text[i]);
      if (!p.origin.empty()) q.origin.insert(q.origin.end(), space ? replacement_.size() : 1, p.origin[i]);
    }
    return q;
  }

  std::string replacement_;
  Prepend scheme_;
  bool split_;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_metaspace(const JsonValue& v) {
  std::string_view rep = v.at("replacement").as_string();
  std::size_t i = 0;
  char32_t replacement = rep.empty() ? 0 : next_char(rep, i);
  if (rep.empty() || i != rep.size()) v.at("replacement").fail_invalid("expected a single character");
  Prepend scheme = Prepend::kAlways;
  if (auto s = v.find("prepend_scheme"); s && !s->is_null()) {
    std::string_view name = s->as_string();
    if (name == "always") scheme = Prepend::kAlways;
    else if (name == "first") scheme = Prepend::kFirst;
    else if (name == "never") scheme = Prepend::kNever;
    else s->fail_unsupported("prepend_scheme", name);
  } else if (!v.bool_or("add_prefix_space", true)) {
    scheme = Prepend::kNever;
  }
  return std::make_unique<Metaspace>(replacement, scheme, v.bool_or("split", true));
}

}  // namespace ogai::tokenizer
