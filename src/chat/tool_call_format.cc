#include "chat/tool_call_format.h"

#include <array>
#include <cctype>

#include <nlohmann/json.hpp>

namespace ogai::chat {
namespace {

// The format table. Order = detection order (the most specific marker first).
constexpr std::array<ToolCallSyntax, 3> kSyntaxes = {{
    {ToolCallFormat::kMistral, "mistral", "[TOOL_CALLS][", "", "", ", ", "]", "arguments", "[TOOL_CALLS]", "[TOOL_CALLS]"},
    {ToolCallFormat::kLlama3Json, "llama3_json", "", "", "", "; ", "", "parameters", "<|python_tag|>", ""},
    {ToolCallFormat::kHermes, "hermes", "", "<tool_call>\n", "\n</tool_call>", "\n", "", "arguments", "<tool_call>", "<tool_call>"},
}};

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` appears in `s` as an identifier (not inside a longer name).
bool has_identifier(std::string_view s, std::string_view word) {
  for (std::size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1)) {
    const bool left = at == 0 || !is_word(s[at - 1]);
    const std::size_t after = at + word.size();
    const bool right = after >= s.size() || !is_word(s[after]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace

const ToolCallSyntax& tool_call_syntax(ToolCallFormat format) {
  for (const auto& s : kSyntaxes)
    if (s.format == format) return s;
  return kSyntaxes.back();
}

std::string write_tool_calls(const ToolCallSyntax& syntax, const std::vector<ToolCall>& calls) {
  std::string out(syntax.begin);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (i > 0) out += syntax.separator;
    out += syntax.call_open;
    out += "{\"name\": " + nlohmann::json(calls[i].name).dump() + ", \"" + std::string(syntax.arguments_key) + "\": ";
    out += calls[i].arguments.empty() ? "{}" : calls[i].arguments;
    out += "}";
    out += syntax.call_close;
  }
  out += syntax.end;
  return out;
}

ToolCallFormat detect_tool_call_format(std::string_view source) {
  for (const auto& s : kSyntaxes)
    if (source.find(s.detect) != std::string_view::npos) return s.format;
  if (source.find("ipython") != std::string_view::npos) return ToolCallFormat::kLlama3Json;
  return ToolCallFormat::kHermes;
}

TemplateToolSupport template_tool_support(std::string_view source) {
  TemplateToolSupport s;
  s.tools = has_identifier(source, "tools");
  s.tool_calls = has_identifier(source, "tool_calls");
  s.tool_role = source.find("\"tool\"") != std::string_view::npos || source.find("'tool'") != std::string_view::npos;
  return s;
}

ReasoningMarkers detect_reasoning_markers(std::string_view source) {
  if (source.find("<think>") == std::string_view::npos) return {};
  return {"<think>", "</think>"};
}

}  // namespace ogai::chat

namespace ogai {

const char* tool_call_format_name(ToolCallFormat format) { return chat::tool_call_syntax(format).name.data(); }

std::optional<ToolCallFormat> parse_tool_call_format(std::string_view name) {
  for (ToolCallFormat f : {ToolCallFormat::kHermes, ToolCallFormat::kLlama3Json, ToolCallFormat::kMistral})
    if (chat::tool_call_syntax(f).name == name) return f;
  return std::nullopt;
}

}  // namespace ogai
