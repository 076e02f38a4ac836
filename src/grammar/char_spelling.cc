#include "grammar/char_spelling.h"

#include <fmt/format.h>

#include <algorithm>

namespace ogai::grammar {

std::string json_escape_of(std::uint32_t cp) {
  switch (cp) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default: return fmt::format("\\u{:04x}", cp);
  }
}

Sequence spell_class(GrammarBuilder& builder, const CodepointSet& set, Spelling spelling, const std::string& name) {
  if (spelling == Spelling::kUtf8) return utf8_class(builder, set, name);
  CodepointSet special;  // what JSON strings must escape
  special.add(0, 0x1F);
  special.add('"');
  special.add('\\');
  const CodepointSet keep = special.complement();
  CodepointSet only_plain;
  for (const auto& [a, b] : set.ranges())
    for (const auto& [c, d] : keep.ranges())
      if (std::max(a, c) <= std::min(b, d)) only_plain.add(std::max(a, c), std::min(b, d));
  std::vector<Sequence> alts;
  if (!only_plain.empty()) alts.push_back(utf8_class(builder, only_plain, name + "-char"));
  for (std::uint32_t cp = 0; cp <= 0x5C; ++cp)
    if (special.contains(cp) && set.contains(cp)) alts.push_back(builder.literal(json_escape_of(cp)));
  if (alts.size() == 1) return alts[0];
  return {GrammarBuilder::ref(builder.rule(name, std::move(alts)))};
}

Sequence spell_literal(GrammarBuilder& builder, const std::string& text, Spelling spelling) {
  if (spelling == Spelling::kUtf8) return builder.literal(text);
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == '"' || c == '\\') out += json_escape_of(c);
    else out += static_cast<char>(c);
  }
  return builder.literal(out);
}

}  // namespace ogai::grammar
