#include "chat/tool_call_format.h"

#include <array>
#include <cctype>

#include <nlohmann/json.hpp>

#include "chat/reply/builtin_templates.h"

namespace ogai::chat {
namespace {

// The format table. Order = detection order (the most specific marker first).
constexpr std::array<ToolCallSyntax, 8> kSyntaxes = {{
    {ToolCallFormat::kMistral, "mistral", "[TOOL_CALLS][", "", "", ", ", "]", "arguments", "[TOOL_CALLS]", "[TOOL_CALLS]"},
    {ToolCallFormat::kLlama3Json, "llama3_json", "", "", "", "; ", "", "parameters", "<|python_tag|>", ""},
    {ToolCallFormat::kQwen3Xml, "qwen3_xml", "", "", "", "\n", "", "", "<function=", "<tool_call>",
     "<tool_call>\n<function={name}>\n{arguments}\n</function>\n</tool_call>", false},
    {ToolCallFormat::kHarmony, "harmony", "", "", "", "<|start|>assistant", "", "", "<|channel|>", "",
     "<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{arguments}<|call|>"},
    {ToolCallFormat::kDeepSeekR1, "deepseek_r1", "<｜tool▁calls▁begin｜>", "", "", "", "<｜tool▁calls▁end｜>", "",
     "<｜tool▁call▁begin｜>", "", "<｜tool▁call▁begin｜>function<｜tool▁sep｜>{name}\n```json\n{arguments}\n```<｜tool▁call▁end｜>"},
    {ToolCallFormat::kCommandR, "command_r", "<|START_ACTION|>[", "", "", ", ", "]<|END_ACTION|>", "",
     "<|START_ACTION|>", "", "{\"tool_name\": \"{name}\", \"parameters\": {arguments}}"},
    {ToolCallFormat::kGemma4, "gemma4", "", "", "", "", "", "", "<|tool_call>", "",
     "<|tool_call>call:{name}{arguments}<tool_call|>"},
    {ToolCallFormat::kHermes, "hermes", "", "<tool_call>\n", "\n</tool_call>", "\n", "", "arguments", "<tool_call>", "<tool_call>"},
}};

std::string fill(std::string_view tmpl, std::string_view name, std::string_view arguments) {
  std::string out(tmpl);
  const std::size_t n = out.find("{name}");
  if (n != std::string::npos) out.replace(n, 6, name);
  const std::size_t a = out.find("{arguments}");
  if (a != std::string::npos) out.replace(a, 11, arguments);
  return out;
}

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
    if (!syntax.call_template.empty()) {
      out += fill(syntax.call_template, calls[i].name, calls[i].arguments.empty() ? "{}" : calls[i].arguments);
      continue;
    }
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
  return *ogai::parse_tool_call_format(reply::detect_template_family(source));
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
  for (const auto& s : chat::kSyntaxes)
    if (s.name == name) return s.format;
  return std::nullopt;
}

}  // namespace ogai
