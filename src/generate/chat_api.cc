// Model::prepare_chat (include/ogai/chat.h): checks the tools and the tool choice, renders the
// turn through the package's template (with what it cannot render written into the messages,
// chat/tool_prompt.h), and makes the forced-call constraint for tool_choice required / a named
// function (grammar/tool_call_grammar.h).
#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "base/json_lenient.h"

#include "base/error.h"
#include "chat/reply/reply_layout.h"
#include "chat/reply/response_parser.h"
#include "chat/tool_call_format.h"
#include "chat/tool_prompt.h"
#include "generate/model_impl.h"
#include "grammar/json_schema.h"
#include "ogai/model.h"

namespace ogai {
namespace {

using chat::Json;

constexpr int kMaxForcedCalls = 16;  // the most calls one forced parallel reply may hold

std::string parameters_where(std::size_t i) { return "tools[" + std::to_string(i) + "].function.parameters"; }

// Fail closed: every parameter schema must be one the constraint engine can enforce.
void check_parameter_schemas(const Json& tools) {
  for (std::size_t i = 0; i < tools.size(); ++i)
    grammar::compile_json_schema(tools[i]["function"]["parameters"].dump(), parameters_where(i));
}

void check_tool_choice(const ChatOptions& o) {
  using Mode = ToolChoice::Mode;
  const Mode mode = o.tool_choice.mode;
  if (o.tools.empty() && (mode == Mode::kRequired || mode == Mode::kFunction))
    fail(ErrorCode::kInvalidArgument, "tool_choice", "'{}' needs tools, and none were given",
         mode == Mode::kRequired ? "required" : o.tool_choice.function);
  if (mode != Mode::kFunction) return;
  for (const Tool& t : o.tools)
    if (t.name == o.tool_choice.function) return;
  fail(ErrorCode::kInvalidArgument, "tool_choice.function.name", "'{}' is not the name of one of the tools",
       o.tool_choice.function);
}

Json template_variables(const std::map<std::string, std::string>& kwargs) {
  Json vars = Json::object();
  for (const auto& [name, text] : kwargs) {
    Json value = parse_json_or_discarded<Json>(text);
    if (value.is_discarded())
      fail(ErrorCode::kInvalidArgument, "chat_template_kwargs." + name, "the value is not JSON: {}", text);
    vars[name] = std::move(value);
  }
  return vars;
}

// How the reply template reads a call's arguments (its tool_calls field's content_args), as the
// tool-call spec's "arguments_dialect"; null for JSON. A layout from a response_schema names no
// dialect: the built-in template of the call syntax's family says it. Keys are sorted when the
// chat template renders them through dictsort (Gemma-4's does).
Json arguments_dialect(const ReplyLayout& layout, std::string_view source, const chat::ToolCallSyntax& syntax) {
  std::shared_ptr<const chat::reply::ResponseTemplate> tmpl = layout.tmpl;
  if (!tmpl) tmpl = chat::reply::builtin_layout(source, std::string(syntax.name)).tmpl;
  for (const auto& f : tmpl->fields) {
    if (f.name != "tool_calls" || f.parser.kind != chat::reply::ContentKind::kJson) continue;
    const chat::reply::JsonDialect& d = f.parser.dialect;
    if (!d.unquoted_keys && d.string_delims.empty()) return nullptr;
    Json out = {{"unquoted_keys", d.unquoted_keys}, {"sorted_keys", source.find("dictsort") != std::string_view::npos}};
    if (!d.string_delims.empty()) out["string_delims"] = {d.string_delims[0].first, d.string_delims[0].second};
    return out;
  }
  return nullptr;
}

// The kToolCalls spec (grammar/tool_call_grammar.h) forcing the calls tool_choice asks for.
ResponseFormat forced_calls(const ChatOptions& o, const Json& tools, const chat::ToolCallSyntax& syntax,
                            const ChatPrompt& prompt, std::string_view source) {
  const bool named = o.tool_choice.mode == ToolChoice::Mode::kFunction;
  Json functions = Json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const Json& f = tools[i]["function"];
    if (named && f["name"] != o.tool_choice.function) continue;
    // A tool declared without parameters takes none (OpenAI's rule): its forced arguments are {}.
    const Json none = {{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}};
    const Json& params = o.tools[i].parameters.empty() ? none : f["parameters"];
    functions.push_back({{"name", f["name"]}, {"parameters", params}, {"where", parameters_where(i)}});
  }
  // A prompt that opened a reasoning section: the reply closes it first.
  std::string begin = prompt.starts_in_reasoning ? prompt.reasoning_close + "\n\n" : "";
  if (!syntax.forced)
    fail(ErrorCode::kInvalidArgument, "tool_choice",
         "calls in the {} syntax cannot be forced (their arguments are not JSON); use tool_choice auto", syntax.name);
  Json spec = {{"begin", begin + std::string(syntax.begin)},
               {"call_template", syntax.call_template},
               {"max_calls", kMaxForcedCalls},
               {"call_open", syntax.call_open},
               {"call_close", syntax.call_close},
               {"separator", syntax.separator},
               {"end", syntax.end},
               {"arguments_key", syntax.arguments_key},
               {"parallel", !named && o.parallel_tool_calls},
               {"functions", std::move(functions)}};
  if (Json d = arguments_dialect(*prompt.reply_layout, source, syntax); !d.is_null()) spec["arguments_dialect"] = d;
  return {ResponseFormat::Kind::kToolCalls, spec.dump(), true};
}

bool is_reasoning(const std::string& name) {
  return name == "thinking" || name == "reasoning" || name == "reasoning_content";
}

// Whether the layout reads reasoning, and whether the prompt leaves a reasoning region open.
void find_reasoning(ChatPrompt& p) {
  if (!p.reply_layout->tmpl) {
    p.parse_reasoning = true;
    return;
  }
  for (const auto& f : p.reply_layout->tmpl->fields)
    if (is_reasoning(f.name)) {
      p.parse_reasoning = true;
      p.reasoning_open = f.open ? f.open->source() : "";
      p.reasoning_close = f.close_text;
    }
  chat::reply::ResponseParser probe(p.reply_layout->tmpl, p.text, p.parse_tool_calls);
  p.starts_in_reasoning = is_reasoning(probe.open_in_prefix());
}

// Phi-3-V's template reads a message's content as text with <|image_N|> tags in it (as its model
// card writes them): each image part becomes the text part "<|image_N|>\n", N counting the
// conversation's images from 1 (image_tags.h turns the tags into the ids the expansion reads).
std::vector<ChatMessage> with_image_tags(std::span<const ChatMessage> messages) {
  std::vector<ChatMessage> out(messages.begin(), messages.end());
  int n = 0;
  for (ChatMessage& m : out)
    for (ContentPart& part : m.parts)
      if (part.kind == ContentPart::Kind::kImage) {
        part.kind = ContentPart::Kind::kText;
        part.text = fmt::format("<|image_{}|>\n", ++n);
        part.media = {};
      }
  return out;
}

}  // namespace

ChatPrompt Model::prepare_chat(std::span<const ChatMessage> messages, const ChatOptions& options) const {
  std::vector<MediaInput> media;
  const auto& accepts = impl_->config.generation;
  for (std::size_t i = 0; i < messages.size(); ++i)
    for (std::size_t j = 0; j < messages[i].parts.size(); ++j) {
      const ContentPart& part = messages[i].parts[j];
      if (part.kind == ContentPart::Kind::kText) continue;
      const bool audio = part.kind == ContentPart::Kind::kAudio;
      if (!(audio ? accepts.accepts_audio : accepts.accepts_images))
        fail(ErrorCode::kUnsupported, fmt::format("messages[{}].parts[{}]", i, j),
             "this package has no {} encoder: {} are not executed for it (docs/multimodal.md)",
             audio ? "audio" : "image", audio ? "audio clips" : "images");
      MediaInput m = part.media;
      m.kind = audio ? MediaInput::Kind::kAudio : MediaInput::Kind::kImage;
      if (m.origin.empty()) m.origin = fmt::format("messages[{}].parts[{}]", i, j);
      media.push_back(std::move(m));
    }
  if (!impl_->chat_template)
    fail(ErrorCode::kInvalidArgument, impl_->config.root.string(), "the package has no chat template");
  const chat::ChatTemplate& tmpl = *impl_->chat_template;
  const Json tools = chat::tool_definitions(options.tools);
  check_tool_choice(options);
  check_parameter_schemas(tools);
  chat::ChatRequest probe;
  if (!tools.empty()) probe.tools = tools;
  const std::string& source = tmpl.select(probe).source();
  ChatPrompt p;
  p.tool_call_format = options.tool_call_format.value_or(chat::detect_tool_call_format(source));
  p.reply_layout = options.tool_call_format ? nullptr : impl_->reply_layout;
  if (!p.reply_layout)
    p.reply_layout =
        std::make_shared<ReplyLayout>(chat::reply::builtin_layout(source, tool_call_format_name(p.tool_call_format)));
  const chat::ToolCallSyntax& syntax = chat::tool_call_syntax(p.tool_call_format);
  std::vector<ChatMessage> tagged;
  if (impl_->media && impl_->expander.numbered() && !media.empty()) {
    tagged = with_image_tags(messages);
    messages = tagged;
  }
  chat::ChatRequest request =
      chat::tool_chat_request(messages, options, tools, chat::template_tool_support(source), syntax);
  request.variables = template_variables(options.template_kwargs);
  p.text = tmpl.render(request);
  p.media = std::move(media);
  p.parse_tool_calls = !tools.empty() && options.tool_choice.mode != ToolChoice::Mode::kNone;
  find_reasoning(p);
  const auto mode = options.tool_choice.mode;
  if (mode == ToolChoice::Mode::kRequired || mode == ToolChoice::Mode::kFunction)
    p.constraint = forced_calls(options, tools, syntax, p, source);
  return p;
}

std::string Model::render_chat(std::span<const ChatMessage> messages, bool add_generation_prompt) const {
  ChatOptions options;
  options.add_generation_prompt = add_generation_prompt;
  return prepare_chat(messages, options).text;
}

}  // namespace ogai
