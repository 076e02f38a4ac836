// Model::prepare_chat (include/ogai/chat.h): checks the tools and the tool choice, renders the
// turn through the package's template (with what it cannot render written into the messages,
// chat/tool_prompt.h), and makes the forced-call constraint for tool_choice required / a named
// function (grammar/tool_call_grammar.h).
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "chat/tool_call_format.h"
#include "chat/tool_prompt.h"
#include "generate/model_impl.h"
#include "grammar/json_schema.h"
#include "ogai/model.h"

namespace ogai {
namespace {

using chat::Json;

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
    Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded())
      fail(ErrorCode::kInvalidArgument, "chat_template_kwargs." + name, "the value is not JSON: {}", text);
    vars[name] = std::move(value);
  }
  return vars;
}

// The kToolCalls spec (grammar/tool_call_grammar.h) forcing the calls tool_choice asks for.
ResponseFormat forced_calls(const ChatOptions& o, const Json& tools, const chat::ToolCallSyntax& syntax,
                            const ChatPrompt& prompt) {
  const bool named = o.tool_choice.mode == ToolChoice::Mode::kFunction;
  Json functions = Json::array();
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const Json& f = tools[i]["function"];
    if (named && f["name"] != o.tool_choice.function) continue;
    functions.push_back({{"name", f["name"]}, {"parameters", f["parameters"]}, {"where", parameters_where(i)}});
  }
  // A prompt that opened a reasoning section: the reply closes it first.
  std::string begin = prompt.starts_in_reasoning ? prompt.reasoning_close + "\n\n" : "";
  Json spec = {{"begin", begin + std::string(syntax.begin)},
               {"call_open", syntax.call_open},
               {"call_close", syntax.call_close},
               {"separator", syntax.separator},
               {"end", syntax.end},
               {"arguments_key", syntax.arguments_key},
               {"parallel", !named && o.parallel_tool_calls},
               {"functions", std::move(functions)}};
  return {ResponseFormat::Kind::kToolCalls, spec.dump(), true};
}

void find_reasoning(std::string_view source, ChatPrompt& p) {
  const chat::ReasoningMarkers markers = chat::detect_reasoning_markers(source);
  p.reasoning_open = markers.open;
  p.reasoning_close = markers.close;
  if (markers.open.empty()) return;
  const std::size_t open = p.text.rfind(markers.open);
  const std::size_t close = p.text.rfind(markers.close);
  p.starts_in_reasoning = open != std::string::npos && (close == std::string::npos || open > close);
}

}  // namespace

ChatPrompt Model::prepare_chat(std::span<const ChatMessage> messages, const ChatOptions& options) const {
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
  const chat::ToolCallSyntax& syntax = chat::tool_call_syntax(p.tool_call_format);
  chat::ChatRequest request =
      chat::tool_chat_request(messages, options, tools, chat::template_tool_support(source), syntax);
  request.variables = template_variables(options.template_kwargs);
  p.text = tmpl.render(request);
  p.parse_tool_calls = !tools.empty() && options.tool_choice.mode != ToolChoice::Mode::kNone;
  find_reasoning(source, p);
  const auto mode = options.tool_choice.mode;
  if (mode == ToolChoice::Mode::kRequired || mode == ToolChoice::Mode::kFunction)
    p.constraint = forced_calls(options, tools, syntax, p);
  return p;
}

std::string Model::render_chat(std::span<const ChatMessage> messages, bool add_generation_prompt) const {
  ChatOptions options;
  options.add_generation_prompt = add_generation_prompt;
  return prepare_chat(messages, options).text;
}

}  // namespace ogai
