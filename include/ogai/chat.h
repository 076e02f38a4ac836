// Chat turns with tools and reasoning: the messages a conversation holds (with assistant tool
// calls and tool results), the tool definitions offered to the model, how it may call them, and
// the model's reply parsed back into content, reasoning and tool calls (docs/structured_output.md,
// "Tool calling" and "Reasoning").
//
//   ChatPrompt p = model->prepare_chat(messages, chat_options);   // render + the forced-call grammar
//   GenerationOptions o; o.response_format = p.constraint; o.add_special_tokens = false;
//   ChatReply reply = parse_chat_reply(p, model->generate(p.text, o).text);
//
// Plain structs; ChatReplyParser is the streaming form of parse_chat_reply (same result for the
// same text, however it is split).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ogai/export.h"
#include "ogai/media.h"
#include "ogai/options.h"

namespace ogai {

// One call of a function: OpenAI's {"id", "type": "function", "function": {"name", "arguments"}}.
struct ToolCall {
  std::string id;         // "call_..." (made by ogai for generated calls)
  std::string name;       // the function's name
  std::string arguments;  // the arguments as JSON text (an object)
};

struct ChatMessage {
  ChatMessage() = default;
  ChatMessage(std::string role_, std::string content_, std::vector<ToolCall> tool_calls_ = {},
              std::string tool_call_id_ = {})
      : role(std::move(role_)), content(std::move(content_)), tool_calls(std::move(tool_calls_)),
        tool_call_id(std::move(tool_call_id_)) {}

  std::string role;     // "system", "user", "assistant", "tool"
  std::string content;
  std::vector<ToolCall> tool_calls;  // assistant: the calls it made
  std::string tool_call_id;          // tool: the call this message answers
  std::string name;                  // tool: the function's name (optional)
  std::string reasoning_content;     // assistant: its reasoning, for templates that render it
  // Content with images / audio, in order (include/ogai/media.h); empty = `content` is the text.
  std::vector<ContentPart> parts;
};

// A function the model may call: OpenAI's {"type": "function", "function": {...}}.
struct Tool {
  std::string name;         // [A-Za-z0-9_-]{1,64}
  std::string description;  // may be empty
  std::string parameters;   // JSON Schema text of the arguments object; empty = no parameters
};

struct ToolChoice {
  enum class Mode {
    kAuto,      // the model writes text or calls (parsed from its text; a malformed call stays content)
    kNone,      // tools are described to the template, but the reply is content only (never parsed)
    kRequired,  // at least one call, forced by the constraint engine (arguments match the schema)
    kFunction,  // a call of `function`, forced the same way
  };
  Mode mode = Mode::kAuto;
  std::string function;  // kFunction: the function's name
};

// How a template's model writes tool calls: the built-in response templates (docs/tool_calls.md
// has each one's text).
enum class ToolCallFormat {
  kHermes,     // <tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call> (Qwen2.5, SmolLM3, Hermes)
  kLlama3Json, // {"name": ..., "parameters": {...}} as the whole reply (Llama 3.1+); calls separated by "; "
  kMistral,    // [TOOL_CALLS][{"name": ..., "arguments": {...}}, ...]
  kQwen3Xml,   // <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>... (Qwen3-Coder)
  kHarmony,    // gpt-oss: <|channel|>commentary to=functions.NAME ...<|message|>{...}<|call|>
  kDeepSeekR1, // <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{...}\n```<｜tool▁call▁end｜>
  kCommandR,   // <|START_ACTION|>[{"tool_name": ..., "parameters": {...}}]<|END_ACTION|>
  kGemma4,     // <|tool_call>call:NAME{key:<|"|>text<|"|>,...}<tool_call|>
};

// "hermes", "llama3_json", "mistral", "qwen3_xml", "harmony", "deepseek_r1", "command_r", "gemma4".
OGAI_API const char* tool_call_format_name(ToolCallFormat format);
// The format named `name`, or nullopt for an unknown name.
OGAI_API std::optional<ToolCallFormat> parse_tool_call_format(std::string_view name);

struct ChatOptions {
  std::vector<Tool> tools;  // empty: no tools (templates see `tools` undefined)
  ToolChoice tool_choice;   // with no tools, only kAuto / kNone are allowed
  bool parallel_tool_calls = true;  // false: a forced reply holds exactly one call
  // Extra template variables, name -> value as JSON text (e.g. "enable_thinking" -> "false").
  std::map<std::string, std::string> template_kwargs;
  // Unset: detected from the template source (docs: "Choosing the format").
  std::optional<ToolCallFormat> tool_call_format;
  bool add_generation_prompt = true;
};

struct ReplyLayout;  // how replies split into fields (a response template; opaque here)

// A chat turn ready to generate.
struct ChatPrompt {
  std::string text;  // the rendered prompt (tokenize without special tokens: the template wrote them)
  // tool_choice required / a named function: the forced call(s) (a kToolCalls format); else unset.
  std::optional<ResponseFormat> constraint;
  ToolCallFormat tool_call_format = ToolCallFormat::kHermes;
  bool parse_tool_calls = false;  // tools were offered and tool_choice is not kNone
  // The template's reasoning markers (empty when it has none) and whether the prompt ends inside
  // an opened reasoning section (the reply starts as reasoning).
  std::string reasoning_open;
  std::string reasoning_close;
  bool starts_in_reasoning = false;
  bool parse_reasoning = false;  // the layout has a reasoning field
  // How the reply is parsed (null: the built-in named by tool_call_format, with <think> reasoning
  // when reasoning_open is set).
  std::shared_ptr<const ReplyLayout> reply_layout;
  // The messages' image / audio parts in conversation order: pass them as GenerationOptions::media
  // with `text` (the template rendered one placeholder per part; docs/multimodal.md).
  std::vector<MediaInput> media;
};

struct ChatReply {
  std::string content;            // the text outside reasoning and tool calls
  std::string reasoning_content;  // the reasoning section's text (markers dropped)
  std::vector<ToolCall> tool_calls;
};

// The reply in `text` (the whole generated text). Equals feeding it to a ChatReplyParser.
OGAI_API ChatReply parse_chat_reply(const ChatPrompt& prompt, std::string_view text);

// One streamed piece of a tool call, as OpenAI streams them: the first piece of call `index`
// carries its id and name (and arguments ""), later pieces only argument text.
struct ToolCallDelta {
  int index = 0;
  std::string id;    // first piece only
  std::string name;  // first piece only
  std::string arguments;
};

struct ChatReplyDelta {
  std::string content;
  std::string reasoning_content;
  std::vector<ToolCallDelta> tool_calls;
  bool empty() const { return content.empty() && reasoning_content.empty() && tool_calls.empty(); }
};

// Parses a reply as it streams. Text that could still turn out to be a marker (a tool-call
// opening, a reasoning close) is held back until it is decided, so deltas never need retracting;
// a tool call is released once it is complete. Not thread-safe; one per reply.
class OGAI_API ChatReplyParser {
 public:
  explicit ChatReplyParser(const ChatPrompt& prompt);
  ~ChatReplyParser();
  ChatReplyParser(const ChatReplyParser&) = delete;
  ChatReplyParser& operator=(const ChatReplyParser&) = delete;

  ChatReplyDelta feed(std::string_view text);
  ChatReplyDelta finish();        // the generation ended: releases what was held back
  const ChatReply& reply() const; // everything parsed so far

  struct Impl;

 private:
  Impl* impl_;
};

}  // namespace ogai
