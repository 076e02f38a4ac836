#include "workflow/text_assembly.h"

#include <utf8proc.h>

#include <regex>
#include <set>

#include "base/error.h"
#include "base/file.h"
#include "base/json_parse.h"

namespace ogai::workflow {
namespace {

using nlohmann::json;

constexpr const char* kAbi = "onnx-genai.text-assembly";
constexpr const char* kSpace = " \t\r\n\v\f";

std::string trim_end(std::string s) { return s.erase(s.find_last_not_of(kSpace) + 1); }
std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(kSpace);
  return b == std::string::npos ? "" : trim_end(s.substr(b));
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = s.find('\n', start)) != std::string::npos; start = nl + 1) out.push_back(s.substr(start, nl - start));
  out.push_back(s.substr(start));
  return out;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  return s;
}

// "open inner close" (inner on one line, shortest) -> "head is tail" (inner split at its first
// whitespace, both trimmed), or "head" when inner is one word.
std::string rewrite_tags(const std::string& s, const std::string& open, const std::string& close) {
  std::string out;
  std::size_t i = 0, copied = 0;
  while (!open.empty() && (i = s.find(open, i)) != std::string::npos) {
    const std::size_t inner = i + open.size(), j = s.find(close, inner);
    if (j == std::string::npos || s.find('\n', inner) < j) {
      ++i;
      continue;
    }
    const std::string body = trim(s.substr(inner, j - inner));
    const auto split = body.find_first_of(kSpace);
    out += s.substr(copied, i - copied);
    out += split == std::string::npos ? body : body.substr(0, split) + " is " + trim(body.substr(split + 1));
    i = copied = j + close.size();
  }
  return out + s.substr(copied);
}

std::string strip_markdown(const std::string& s) {
  static const std::regex heading(R"(^\s{0,3}#{1,6}\s+)"), bullet(R"(^\s*[*+-]\s+)"), bold(R"(\*\*([^*]+)\*\*)"),
      italic(R"((^|[^*])\*([^*\n]+)\*([^*]|$))"), rule(R"(^\s*[-*_]{3,}\s*$)");
  std::vector<std::string> kept;
  for (const auto& raw : lines_of(s)) {
    std::string line = std::regex_replace(raw, heading, "", std::regex_constants::format_first_only);
    line = std::regex_replace(line, bullet, "", std::regex_constants::format_first_only);
    for (std::string next; (next = std::regex_replace(line, bold, "$1")) != line;) line = next;
    line = trim_end(std::regex_replace(line, italic, "$1$2$3"));
    if (!std::regex_match(line, rule)) kept.push_back(line);
  }
  return replace_all(replace_all(join_lines(kept), "\u2022 ", ""), "    ", "");
}

std::string keep_leading_tags(const std::string& s) {
  static const std::regex tags(R"(^[ \t]*((?:\[[^\]]+\][ \t]*)+))");
  std::vector<std::string> out;
  for (const auto& line : lines_of(s)) {
    std::smatch m;
    out.push_back(std::regex_search(line, m, tags) ? trim(m[1].str()) : line);
  }
  return join_lines(out);
}

std::string lowercase(const std::string& s) {
  std::string out;
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  for (utf8proc_ssize_t i = 0, n = static_cast<utf8proc_ssize_t>(s.size()); i < n;) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t len = utf8proc_iterate(p + i, n - i, &cp);
    if (len <= 0) {  // not UTF-8: the byte as it is
      out += s[static_cast<std::size_t>(i++)];
      continue;
    }
    utf8proc_uint8_t buf[4];
    out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(utf8proc_encode_char(utf8proc_tolower(cp), buf)));
    i += len;
  }
  return out;
}

std::string lowercase_tags(const std::string& s) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t i = 0; (i = s.find('[', i)) != std::string::npos;) {
    const std::size_t j = s.find(']', i + 1);
    if (j == std::string::npos) break;
    if (j == i + 1) {  // "[]": no tag; the search goes on after '['
      ++i;
      continue;
    }
    out += s.substr(copied, i - copied) + "[" + lowercase(s.substr(i + 1, j - i - 1)) + "]";
    i = copied = j + 1;
  }
  return out + s.substr(copied);
}

std::string collapse_newlines(const std::string& s) {
  static const std::regex runs("\n{2,}");
  return std::regex_replace(s, runs, "\n");
}

// ---- parsing ---------------------------------------------------------------------------------

void only_keys(const json& obj, std::initializer_list<const char*> keys, const std::string& where) {
  if (!obj.is_object()) fail(ErrorCode::kInvalidPackage, where, "is {}; expected an object", obj.dump());
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();  // not a structured binding: clang cannot capture one
    if (std::none_of(keys.begin(), keys.end(), [&key](const char* k) { return key == k; }))
      fail(ErrorCode::kInvalidPackage, where + "." + key, "is not a field of this object (value {})", it->dump());
  }
}

std::string text_field(const json& obj, const char* key, const std::string& where) {
  if (!obj.contains(key) || !obj[key].is_string())
    fail(ErrorCode::kInvalidPackage, where + "." + key, "is required: a string");
  return obj[key].get<std::string>();
}

std::int64_t count_field(const json& obj, const char* key, const std::string& where, std::int64_t min,
                         std::optional<std::int64_t> fallback = std::nullopt) {
  if (!obj.contains(key)) {
    if (fallback) return *fallback;
    fail(ErrorCode::kInvalidPackage, where + "." + key, "is required: an integer >= {}", min);
  }
  if (!obj[key].is_number_integer() || obj[key].get<std::int64_t>() < min)
    fail(ErrorCode::kInvalidPackage, where + "." + key, "is {}; expected an integer >= {}", obj[key].dump(), min);
  return obj[key].get<std::int64_t>();
}

TextTransform parse_transform(const json& t, const std::string& where) {
  if (!t.is_object()) fail(ErrorCode::kInvalidPackage, where, "is {}; expected a transform object", t.dump());
  TextTransform out{text_field(t, "kind", where), "", ""};
  if (out.kind == "rewrite_delimited_tags") {
    only_keys(t, {"kind", "open", "close"}, where);
    out.a = text_field(t, "open", where), out.b = text_field(t, "close", where);
    if (out.a.empty() || out.b.empty()) fail(ErrorCode::kInvalidPackage, where, "open and close must be non-empty");
  } else if (out.kind == "replace") {
    only_keys(t, {"kind", "from", "to"}, where);
    out.a = text_field(t, "from", where), out.b = text_field(t, "to", where);
  } else if (out.kind == "prefix") {
    only_keys(t, {"kind", "value"}, where);
    out.a = text_field(t, "value", where);
  } else if (out.kind == "strip_markdown" || out.kind == "keep_leading_bracket_tags" ||
             out.kind == "lowercase_bracket_tags" || out.kind == "collapse_newlines") {
    only_keys(t, {"kind"}, where);
  } else {
    fail(ErrorCode::kUnsupported, where + ".kind",
         "'{}' is not a text-assembly transform (rewrite_delimited_tags, strip_markdown, keep_leading_bracket_tags, "
         "replace, lowercase_bracket_tags, collapse_newlines, prefix)", out.kind);
  }
  return out;
}

TextSegment parse_segment(const json& s, const std::string& where) {
  only_keys(s, {"literal", "field", "transforms"}, where);
  TextSegment out;
  if (s.contains("literal") == s.contains("field"))
    fail(ErrorCode::kInvalidPackage, where, "a segment declares exactly one of literal or field");
  if (s.contains("literal")) {
    out.literal = text_field(s, "literal", where);
    if (s.contains("transforms") && !s["transforms"].empty())
      fail(ErrorCode::kInvalidPackage, where + ".transforms", "applies to field segments only");
    return out;
  }
  out.field = text_field(s, "field", where);
  if (out.field != "input" && out.field != "instructions")
    fail(ErrorCode::kInvalidPackage, where + ".field", "is '{}'; expected input or instructions", out.field);
  const json transforms = s.value("transforms", json::array());
  if (!transforms.is_array()) fail(ErrorCode::kInvalidPackage, where + ".transforms", "must be a list");
  for (std::size_t i = 0; i < transforms.size(); ++i)
    out.transforms.push_back(parse_transform(transforms[i], where + ".transforms[" + std::to_string(i) + "]"));
  return out;
}

bool is_text_assembly(const metadata::Component& c) {
  return (c.contract && c.contract->id == kAbi) ||
         (c.implementation.kind == metadata::Implementation::Kind::kAdapter && c.implementation.abi == kAbi);
}

}  // namespace

std::string apply_text_transform(const TextTransform& t, const std::string& s) {
  if (t.kind == "rewrite_delimited_tags") return rewrite_tags(s, t.a, t.b);
  if (t.kind == "strip_markdown") return strip_markdown(s);
  if (t.kind == "keep_leading_bracket_tags") return keep_leading_tags(s);
  if (t.kind == "replace") return replace_all(s, t.a, t.b);
  if (t.kind == "lowercase_bracket_tags") return lowercase_tags(s);
  if (t.kind == "collapse_newlines") return collapse_newlines(s);
  if (t.kind == "prefix") return t.a + s;
  fail(ErrorCode::kInternal, "text-assembly", "unchecked transform '{}'", t.kind);
}

TextAssembly TextAssembly::parse(const json& doc, const std::string& where) {
  only_keys(doc, {"max_input_tokens", "max_output_units", "state_advance_units", "segments", "guidance_rows"}, where);
  TextAssembly p;
  p.max_input_tokens_ = count_field(doc, "max_input_tokens", where, 1);
  p.max_output_units_ = count_field(doc, "max_output_units", where, 1);
  p.state_advance_units_ = count_field(doc, "state_advance_units", where, 0, 0);
  if (!doc.contains("segments") || !doc["segments"].is_array())
    fail(ErrorCode::kInvalidPackage, where + ".segments", "is required: a list of segments");
  for (std::size_t i = 0; i < doc["segments"].size(); ++i)
    p.segments_.push_back(parse_segment(doc["segments"][i], where + ".segments[" + std::to_string(i) + "]"));
  if (doc.contains("guidance_rows")) {
    const std::string g = where + ".guidance_rows";
    only_keys(doc["guidance_rows"], {"unconditional_token_id", "replace_from", "preserve_trailing"}, g);
    const auto& rows = doc["guidance_rows"];
    p.guidance_ = GuidanceRows{static_cast<TokenId>(count_field(rows, "unconditional_token_id", g, 0)),
                               static_cast<std::size_t>(count_field(rows, "replace_from", g, 0)),
                               static_cast<std::size_t>(count_field(rows, "preserve_trailing", g, 0))};
  }
  return p;
}

TextAssembly TextAssembly::load(const std::filesystem::path& file) {
  const std::string where = file.string();
  return parse(parse_json_bounded<json>(read_file(file), where), where);
}

std::string TextAssembly::assemble(const std::string& input, const std::string& instructions) const {
  std::string prompt;
  for (const auto& segment : segments_) {
    if (segment.literal) {
      prompt += *segment.literal;
      continue;
    }
    std::string value = segment.field == "input" ? input : instructions;
    for (const auto& t : segment.transforms) value = apply_text_transform(t, value);
    prompt += value;
  }
  return prompt;
}

std::vector<std::vector<TokenId>> TextAssembly::token_rows(std::vector<TokenId> tokens) const {
  if (!guidance_) return {std::move(tokens)};
  if (tokens.size() < guidance_->replace_from + guidance_->preserve_trailing)
    fail(ErrorCode::kInvalidArgument, "input", "the prompt has {} tokens; the guidance rows need at least {}", tokens.size(),
         guidance_->replace_from + guidance_->preserve_trailing);
  auto unconditional = tokens;
  std::fill(unconditional.begin() + static_cast<std::ptrdiff_t>(guidance_->replace_from),
            unconditional.end() - static_cast<std::ptrdiff_t>(guidance_->preserve_trailing), guidance_->unconditional_token_id);
  return {std::move(tokens), std::move(unconditional)};
}

void TextAssembly::check_input_tokens(std::size_t count, const std::string& field) const {
  if (static_cast<std::int64_t>(count) > max_input_tokens_)
    fail(ErrorCode::kInvalidArgument, field, "the speech prompt has {} tokens; the package allows at most {}", count,
         max_input_tokens_);
}

std::int64_t TextAssembly::output_units(std::optional<std::int64_t> requested, const std::string& field) const {
  const std::int64_t units = requested.value_or(max_output_units_);
  if (units < 1 || units > max_output_units_)
    fail(ErrorCode::kInvalidArgument, field, "is {}; it must be between 1 and {}", units, max_output_units_);
  return units;
}

std::optional<TextAssemblyComponent> find_text_assembly(const metadata::Package& package) {
  if (!package.document.workflow) return std::nullopt;
  std::vector<std::pair<std::string, const metadata::Component*>> found;
  for (const auto& [name, c] : package.document.workflow->components)
    if (is_text_assembly(c)) found.emplace_back(name, &c);
  if (found.empty()) return std::nullopt;
  if (found.size() > 1) {
    std::string names;
    for (const auto& [name, c] : found) names += (names.empty() ? "" : ", ") + name;
    fail(ErrorCode::kInvalidPackage, "pipeline.workflow.components",
         "{} components implement {}@1 ({}); exactly one is needed to know how a speech request becomes a prompt",
         found.size(), kAbi, names);
  }
  const auto& [name, c] = found[0];
  if (c->implementation.artifact.empty())
    fail(ErrorCode::kInvalidPackage, "pipeline.workflow.components." + name + ".implementation.artifact",
         "a text-assembly adapter names its processor JSON here");
  const auto file = std::filesystem::weakly_canonical(package.files.root / c->implementation.artifact);
  const auto rel = file.lexically_relative(package.files.root);
  if (rel.empty() || *rel.begin() == "..")
    fail(ErrorCode::kInvalidPackage, "pipeline.workflow.components." + name + ".implementation.artifact",
         "'{}' is outside the package folder", c->implementation.artifact);
  return TextAssemblyComponent{name, TextAssembly::load(file)};
}

}  // namespace ogai::workflow
