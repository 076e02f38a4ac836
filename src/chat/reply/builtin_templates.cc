#include "chat/reply/builtin_templates.h"

#include <map>
#include <mutex>

#include "base/error.h"

namespace ogai::chat::reply {
namespace {

// Each family's template (the JSON text is ogai's own; the syntax each reads is the model's).
const std::map<std::string, const char*, std::less<>>& sources() {
  static const std::map<std::string, const char*, std::less<>> kSources = {
      {"hermes", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": ["<|im_start|>assistant\n", "<|im_start|>assistant"],
        "fields": {
          "tool_calls": {"open": "<tool_call>", "close": "</tool_call>", "repeats": true, "content": "json",
                         "transform": {"type": "function", "function": "{content}"}},
          "content": {"close": "<|im_end|>"}
        }})J"},
      {"qwen3_xml", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": ["<|im_start|>assistant\n", "<|im_start|>assistant"],
        "fields": {
          "thinking": {"open": "<think>", "close": "</think>"},
          "tool_calls": {"open_pattern": "<tool_call>\\s*<function=(?P<name>[^>\\s]+)>",
                         "close_pattern": "</function>\\s*</tool_call>", "repeats": true, "content": "xml-inline",
                         "content_args": {"tag_pattern": "<parameter=(?P<key>[^>\\s]+)>\\n?(?P<value>.*?)\\n?</parameter>",
                                          "value_parser": {"name": "json", "args": {"allow_non_json": true}}},
                         "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
          "content": {"close": "<|im_end|>"}
        }})J"},
      {"llama3_json", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|start_header_id|>assistant<|end_header_id|>\n\n",
        "fields": {
          "tool_calls": {"open_pattern": "(?:^\\s*(?:<\\|python_tag\\|>)?|;)\\s*(?=\\{)", "repeats": true,
                         "content": "json",
                         "transform": {"type": "function",
                                       "function": {"name": "{content.name}", "arguments": "{content.parameters}"}}},
          "content": {"close": ["<|eot_id|>", "<|eom_id|>"]}
        }})J"},
      {"mistral", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": "[/INST]",
        "fields": {
          "tool_calls": {"open": "[TOOL_CALLS]", "content": "json", "transform_each": true,
                         "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{arguments}"}}},
          "content": {"close": "</s>"}
        }})J"},
      {"harmony", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|start|>assistant",
        "fields": {
          "thinking": {"open_pattern": "<\\|channel\\|>analysis<\\|message\\|>", "close": ["<|end|>", "<|return|>"]},
          "tool_calls": {"open_pattern": "(?J)(?:to=functions\\.(?P<name>[^\\s<]+)\\s*)?<\\|channel\\|>commentary(?:\\s+to=functions\\.(?P<name>[^\\s<]+))?[^<]*(?:<\\|constrain\\|>[^<]*)?<\\|message\\|>",
                         "close": ["<|call|>", "<|end|>"], "repeats": true, "content": "json",
                         "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
          "content": {"open_pattern": "<\\|channel\\|>final<\\|message\\|>", "close": ["<|return|>", "<|end|>"]}
        }})J"},
      {"deepseek_r1", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": "<｜Assistant｜>",
        "fields": {
          "thinking": {"open": "<think>", "close": "</think>"},
          "tool_calls": {"open_pattern": "(?:<｜tool▁calls▁begin｜>)?<｜tool▁call▁begin｜>(?:function)?<｜tool▁sep｜>(?P<name>[^\\n]+)\\n```(?:json)?\\n",
                         "close_pattern": "\\n?```\\s*<｜tool▁call▁end｜>(?:<｜tool▁calls▁end｜>)?",
                         "repeats": true, "content": "json",
                         "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
          "content": {"close": "<｜end▁of▁sentence｜>"}
        }})J"},
      {"command_r", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        "fields": {
          "thinking": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>"},
          "tool_calls": {"open": "<|START_ACTION|>", "close": "<|END_ACTION|>", "content": "json",
                         "transform_each": true,
                         "transform": {"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}}},
          "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>"}
        }})J"},
      {"gemma4", R"J({
        "defaults": {"role": "assistant"},
        "start_anchor": "<|turn>model\n",
        "fields": {
          "thinking": {"open": "<|channel>thought", "close": "<channel|>"},
          "tool_calls": {"open_pattern": "<\\|tool_call>call:(?P<name>[^{\\s<]+)", "close": "<tool_call|>",
                         "repeats": true, "content": "json",
                         "content_args": {"unquoted_keys": true, "string_delims": [["<|\"|>", "<|\"|>"]]},
                         "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}}},
          "content": {"close": ["<turn|>", "<|tool_response>"]}
        }})J"},
  };
  return kSources;
}

bool has(std::string_view s, std::string_view what) { return s.find(what) != std::string_view::npos; }

}  // namespace

const std::vector<std::string>& builtin_template_names() {
  static const std::vector<std::string> kNames = {"hermes",      "qwen3_xml", "llama3_json", "mistral",
                                                  "harmony",     "deepseek_r1", "command_r", "gemma4"};
  return kNames;
}

Json builtin_template_json(std::string_view name, bool think) {
  auto it = sources().find(name);
  if (it == sources().end()) return nullptr;
  Json j = Json::parse(it->second);
  if (think && !j["fields"].contains("thinking")) {
    Json fields = Json::object();
    fields["thinking"] = {{"open", "<think>"}, {"close", "</think>"}};
    for (const auto& [k, v] : j["fields"].items()) fields[k] = v;
    j["fields"] = fields;
  }
  return j;
}

std::string detect_template_family(std::string_view s) {
  if (has(s, "<|tool_call>") || has(s, "<|turn>")) return "gemma4";
  if (has(s, "<|channel|>")) return "harmony";
  if (has(s, "<function=")) return "qwen3_xml";
  if (has(s, "[TOOL_CALLS]")) return "mistral";
  if (has(s, "<|START_ACTION|>") || has(s, "<|START_THINKING|>")) return "command_r";
  if (has(s, "<｜Assistant｜>") || has(s, "<｜tool▁call▁begin｜>")) return "deepseek_r1";
  if (has(s, "<|python_tag|>") || has(s, "ipython")) return "llama3_json";
  return "hermes";
}

std::shared_ptr<const ResponseTemplate> builtin_template(std::string_view name, bool think) {
  static std::mutex mu;
  static std::map<std::pair<std::string, bool>, std::shared_ptr<const ResponseTemplate>> cache;
  std::lock_guard lock(mu);
  auto key = std::make_pair(std::string(name), think);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const Json j = builtin_template_json(name, think);
  if (j.is_null()) fail(ErrorCode::kInvalidArgument, "response_template", "no built-in template named '{}'", name);
  auto t = ResponseTemplate::load(j, "builtin:" + std::string(name), "builtin:" + std::string(name));
  cache.emplace(key, t);
  return t;
}

std::shared_ptr<const ResponseTemplate> builtin_for_source(std::string_view source) {
  return builtin_template(detect_template_family(source), has(source, "<think>"));
}

}  // namespace ogai::chat::reply
