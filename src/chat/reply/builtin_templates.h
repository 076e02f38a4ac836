// The response templates ogai ships, one per family of reply syntax, and which one a chat
// template's source implies (docs/tool_calls.md, "Built-in templates"). Pure data.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "chat/reply/response_template.h"

namespace ogai::chat::reply {

// The names: hermes, qwen3_xml, llama3_json, mistral, harmony, deepseek_r1, command_r, gemma4.
const std::vector<std::string>& builtin_template_names();

// The built-in `name` as JSON (nullopt-like null for an unknown name). `think` adds a
// <think> ... </think> thinking field to the families that take one from their template
// (hermes, llama3_json, mistral).
Json builtin_template_json(std::string_view name, bool think = false);

// The family a chat template's source is written for (hermes when nothing more specific shows).
std::string detect_template_family(std::string_view chat_template_source);

// The built-in for a chat template's source, compiled (cached: one per family and think flag).
std::shared_ptr<const ResponseTemplate> builtin_template(std::string_view name, bool think);
std::shared_ptr<const ResponseTemplate> builtin_for_source(std::string_view chat_template_source);

}  // namespace ogai::chat::reply
