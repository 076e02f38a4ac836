#define PCRE2_CODE_UNIT_WIDTH 8
#include "chat/reply/pattern.h"

#include <pcre2.h>

#include <algorithm>

#include "base/error.h"

namespace ogai::chat::reply {

struct Pattern::Code {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  std::vector<std::pair<std::string, int>> names;  // group name -> number
  ~Code() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

namespace {

std::string escape_literal(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}-#/ \t\n\r").find(c) != std::string_view::npos) {
      if (c == '\n') { out += "\\n"; continue; }
      if (c == '\r') { out += "\\r"; continue; }
      if (c == '\t') { out += "\\t"; continue; }
      out += '\\';
    }
    out += c;
  }
  return out;
}

std::vector<std::pair<std::string, int>> group_names(pcre2_code* code) {
  std::uint32_t count = 0, entry_size = 0;
  PCRE2_SPTR table = nullptr;
  pcre2_pattern_info(code, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(code, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
  pcre2_pattern_info(code, PCRE2_INFO_NAMETABLE, &table);
  std::vector<std::pair<std::string, int>> names;
  for (std::uint32_t i = 0; i < count; ++i) {
    PCRE2_SPTR e = table + i * entry_size;
    names.emplace_back(reinterpret_cast<const char*>(e + 2), (e[0] << 8) | e[1]);
  }
  return names;
}

}  // namespace

Pattern Pattern::regex(const std::string& source, const std::string& where) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  const std::uint32_t options = PCRE2_UTF | PCRE2_UCP | PCRE2_DOTALL | PCRE2_MATCH_INVALID_UTF;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(), options,
                                   &error, &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    fail(ErrorCode::kInvalidArgument, where, "bad regex '{}': {} at offset {}", source,
         reinterpret_cast<const char*>(message), offset);
  }
  auto c = std::make_shared<Code>();
  c->code = code;
  c->context = pcre2_match_context_create(nullptr);
  pcre2_set_match_limit(c->context, kMatchLimit);
  pcre2_set_depth_limit(c->context, 10'000);
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD);
  c->names = group_names(code);
  Pattern p;
  p.code_ = std::move(c);
  p.source_ = source;
  return p;
}

Pattern Pattern::literals(const std::vector<std::string>& texts, const std::string& where) {
  std::vector<std::string> sorted = texts;
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  std::string source;
  for (const std::string& t : sorted) {
    if (t.empty()) fail(ErrorCode::kInvalidArgument, where, "a delimiter must not be empty");
    if (!source.empty()) source += '|';
    source += escape_literal(t);
  }
  Pattern p = regex(source, where);
  return p;
}

PatternMatch Pattern::find(std::string_view subject, std::size_t offset, bool partial) const {
  return run(subject, offset, partial, false);
}

PatternMatch Pattern::at(std::string_view subject, std::size_t offset, bool partial) const {
  return run(subject, offset, partial, true);
}

PatternMatch Pattern::run(std::string_view subject, std::size_t offset, bool partial, bool anchored) const {
  PatternMatch m;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  std::uint32_t options = (partial ? PCRE2_PARTIAL_HARD : 0) | (anchored ? PCRE2_ANCHORED : 0);
  const int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), offset,
                             options, data, code_->context);
  const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data);
  if (rc == PCRE2_ERROR_PARTIAL) {
    m.kind = PatternMatch::Kind::kPartial;
    m.start = ov[0];
  } else if (rc >= 0) {
    m.kind = PatternMatch::Kind::kFull;
    m.start = ov[0];
    m.end = ov[1];
    if (rc > 1 && ov[2] != PCRE2_UNSET) m.first_group = std::string(subject.substr(ov[2], ov[3] - ov[2]));
    for (const auto& [name, n] : code_->names)
      if (n < rc && ov[2 * n] != PCRE2_UNSET)
        m.groups[name] = std::string(subject.substr(ov[2 * n], ov[2 * n + 1] - ov[2 * n]));
  }
  // Anything else (no match, or the step budget spent): no match.
  pcre2_match_data_free(data);
  return m;
}

}  // namespace ogai::chat::reply
