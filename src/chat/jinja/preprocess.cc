// HF's whitespace settings as text rewrites, in the order @huggingface/jinja applies them:
// drop one trailing newline; lstrip_blocks (spaces and tabs before `{%`, `{#` or `{-` at the start
// of a line); trim_blocks (the newline after `%}`, `#}` or `-}`); then remove `{% generation %}`
// and `{% endgeneration %}` markers, keeping the whitespace around them unless the marker has `-`.
#include <string_view>

#include "chat/jinja/lexer.h"
#include "chat/jinja/unicode.h"

namespace ogai::chat::jinja {
namespace {

class Rewriter {
 public:
  explicit Rewriter(const Preprocessed& in) : in_(in) {}
  void keep(std::size_t i) {
    out_.text += in_.text[i];
    out_.origin.push_back(in_.origin[i]);
  }
  void keep_range(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) keep(i);
  }
  void drop_last(std::size_t n) {
    out_.text.resize(out_.text.size() - n);
    out_.origin.resize(out_.origin.size() - n);
  }
  Preprocessed finish() {
    out_.origin.push_back(in_.origin.back());
    return std::move(out_);
  }

 private:
  const Preprocessed& in_;
  Preprocessed out_;
};

bool at_line_start(std::string_view s, std::size_t i) {
  if (i == 0 || s[i - 1] == '\n' || s[i - 1] == '\r') return true;
  return i >= 3 && s.substr(i - 3, 2) == "\xE2\x80" && (s[i - 1] == '\xA8' || s[i - 1] == '\xA9');
}

Preprocessed lstrip_blocks(const Preprocessed& in) {
  std::string_view s = in.text;
  Rewriter w(in);
  for (std::size_t i = 0; i < s.size();) {
    if (at_line_start(s, i)) {
      std::size_t j = i;
      while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
      if (j + 1 < s.size() && s[j] == '{' && (s[j + 1] == '#' || s[j + 1] == '%' || s[j + 1] == '-')) i = j;
    }
    if (i < s.size()) w.keep(i++);
  }
  return w.finish();
}

Preprocessed trim_blocks(const Preprocessed& in) {
  std::string_view s = in.text;
  Rewriter w(in);
  for (std::size_t i = 0; i < s.size(); ++i) {
    bool after_close = i >= 2 && s[i - 1] == '}' && (s[i - 2] == '#' || s[i - 2] == '%' || s[i - 2] == '-');
    if (!(s[i] == '\n' && after_close)) w.keep(i);
  }
  return w.finish();
}

// Matches `{%-? generation -?%}` or the endgeneration form at i; returns its end or npos.
std::size_t match_generation(std::string_view s, std::size_t i, bool& lstrip, bool& rstrip) {
  if (s.substr(i, 2) != "{%") return std::string_view::npos;
  std::size_t k = i + 2;
  lstrip = k < s.size() && s[k] == '-';
  k += lstrip;
  k += js_space_run_after(s, k);
  if (s.substr(k, 3) == "end") k += 3;
  if (s.substr(k, 10) != "generation") return std::string_view::npos;
  k += 10;
  k += js_space_run_after(s, k);
  rstrip = k < s.size() && s[k] == '-';
  k += rstrip;
  if (s.substr(k, 2) != "%}") return std::string_view::npos;
  return k + 2;
}

Preprocessed remove_generation(const Preprocessed& in) {
  std::string_view s = in.text;
  Rewriter w(in);
  std::size_t last_end = 0;
  for (std::size_t i = 0; i < s.size();) {
    bool lstrip = false, rstrip = false;
    std::size_t end = match_generation(s, i, lstrip, rstrip);
    if (end == std::string_view::npos) {
      w.keep(i++);
      continue;
    }
    if (lstrip) w.drop_last(js_space_run_before(s, i, last_end));
    std::size_t after = js_space_run_after(s, end);
    if (!rstrip) w.keep_range(end, end + after);
    i = last_end = end + after;
  }
  return w.finish();
}

}  // namespace

Preprocessed preprocess(std::string_view original) {
  Preprocessed p;
  p.text = original;
  p.origin.resize(original.size() + 1);
  for (std::size_t i = 0; i <= original.size(); ++i) p.origin[i] = static_cast<std::uint32_t>(i);
  if (!p.text.empty() && p.text.back() == '\n') {
    p.text.pop_back();
    p.origin.pop_back();
  }
  return remove_generation(trim_blocks(lstrip_blocks(p)));
}

}  // namespace ogai::chat::jinja
