// parse_responses_request (responses_api.h): a Responses body read once and translated straight
// into the request model (common/conversation.h: input items -> turns and parts, media included)
// and the ApiRequest's options (flat function tools, text.format -> response_format,
// reasoning.effort -> the reasoning_effort template variable), through the readers chat
// completions uses (common/request_fields.h, common/parse_tools.h); no chat JSON is written or
// parsed in between. Errors name the Responses fields.
#include <fmt/format.h>

#include <memory>
#include <utility>

#include "base/cancel.h"
#include "serve/common/json_fields.h"
#include "serve/common/parse_tools.h"
#include "serve/common/request_fields.h"
#include "serve/common/response_format.h"
#include "serve/common/unknown_fields.h"
#include "serve/openai/chat_messages.h"
#include "serve/responses/responses_api.h"

namespace ogai::serve {
namespace {

using Json = RequestJson;

constexpr std::string_view kResponsesFields[] = {
    "model", "input", "instructions", "max_output_tokens", "temperature", "top_p", "stream", "text",
    "top_k", "min_p", "seed", "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs",
    "previous_response_id", "background", "store", "metadata", "user", "service_tier", "reasoning",
    "truncation", "include"};

std::string required_string(const FieldReader& f, const char* name) {
  auto v = f.string(name);
  if (!v || v->empty()) throw invalid_request(f.param(name), f.param(name) + ": required (a non-empty string)");
  return *v;
}

// input_image {image_url: a data URL (file_id is not kept by this server), detail}.
Part read_input_image(const FieldReader& f, const std::string& at, MediaReader& media) {
  if (f.get("file_id") != nullptr)
    throw unsupported(f.param("file_id"), f.param("file_id") + ": this server keeps no files; send image_url as a "
                                                               "data URL");
  auto url = f.string("image_url");
  if (!url) throw invalid_request(f.param("image_url"), f.param("image_url") + ": required (a data URL)");
  f.string("detail");  // type-checked; the package's processor decides the resolution
  return Part::media_part(media.data_url(MediaInput::Kind::kImage, *url, f.param("image_url"), at));
}

// input_file {file_data: "data:audio/...;base64,...", filename}: audio files only.
Part read_input_file(const FieldReader& f, const std::string& at, MediaReader& media) {
  if (f.get("file_id") != nullptr || f.get("file_url") != nullptr)
    throw unsupported(f.param("file_id"), f.param("file_id") + ": this server keeps no files and fetches no URLs; "
                                                               "send file_data as a data URL");
  auto data = f.string("file_data");
  if (!data) throw invalid_request(f.param("file_data"), f.param("file_data") + ": required (a data URL)");
  f.string("filename");
  if (!data->starts_with("data:audio/"))
    throw unsupported(f.param("file_data"), f.param("file_data") + ": only audio files (data:audio/...) are taken "
                                                                   "as input_file");
  return Part::media_part(media.data_url(MediaInput::Kind::kAudio, *data, f.param("file_data"), at));
}

void read_content_part(const Json& part, const std::string& at, bool user, MediaReader& media, Turn& turn) {
  if (!part.is_object()) throw invalid_request(at, at + ": expected a content part object");
  FieldReader f(part, at + ".");
  const std::string type = f.string("type").value_or("");
  if (type == "input_text" || type == "output_text" || type == "text") {
    auto text = f.string("text");
    if (!text) throw invalid_request(f.param("text"), f.param("text") + ": required in a text part");
    return turn.parts.push_back(Part::text_part(*text, at));
  }
  if ((type == "input_image" || type == "input_file") && !user)
    throw invalid_request(f.param("type"), f.param("type") + ": " + quote_value(type) + " parts are only taken from the user");
  if (type == "input_image") return turn.parts.push_back(read_input_image(f, at, media));
  if (type == "input_file") return turn.parts.push_back(read_input_file(f, at, media));
  throw unsupported(f.param("type"), f.param("type") + ": content parts are input_text, output_text, input_image or "
                                                       "input_file (audio), got " +
                                         (f.get("type") ? quote_value(type) : std::string("none")));
}

void read_message_item(const FieldReader& f, const std::string& param, MediaReader& media, Conversation& c) {
  auto role = f.string("role");
  if (!role) throw invalid_request(f.param("role"), f.param("role") + ": required");
  if (*role == "developer") role = "system";
  if (*role != "system" && *role != "user" && *role != "assistant")
    throw invalid_request(f.param("role"), f.param("role") + ": '" + *role +
                                               "' is not one of system, developer, user, assistant");
  const Json* content = f.get("content");
  if (content == nullptr) throw invalid_request(f.param("content"), f.param("content") + ": required");
  Turn turn{*role, {}, "", param};
  if (content->is_string()) {
    turn.parts.push_back(Part::text_part(content->get<std::string>(), param));
  } else if (content->is_array()) {
    for (std::size_t k = 0; k < content->size(); ++k)
      read_content_part((*content)[k], element_param(f.param("content"), k), *role == "user", media, turn);
  } else {
    throw invalid_request(f.param("content"), f.param("content") + ": expected a string or an array of content "
                                                                   "parts, got " + std::string(json_type_name(*content)));
  }
  c.turns.push_back(std::move(turn));
}

// A function_call item: a tool call of the assistant turn before it (consecutive calls are one
// turn, as a reply with parallel calls was).
void read_function_call(const FieldReader& f, const std::string& param, Conversation& c) {
  const std::string call_id = required_string(f, "call_id");
  const std::string name = required_string(f, "name");
  auto arguments = f.string("arguments");
  if (!arguments) throw invalid_request(f.param("arguments"), f.param("arguments") + ": required (a JSON string)");
  Part call = Part::tool_call({call_id, name, *arguments}, param);
  if (!c.turns.empty() && c.turns.back().role == "assistant" && c.turns.back().origin.starts_with("input"))
    return c.turns.back().parts.push_back(std::move(call));
  c.turns.push_back({"assistant", {std::move(call)}, "", param});
}

void read_function_call_output(const FieldReader& f, const std::string& param, Conversation& c) {
  const std::string call_id = required_string(f, "call_id");
  const Json* output = f.get("output");
  if (output == nullptr) throw invalid_request(f.param("output"), f.param("output") + ": required");
  const std::string text = content_text(*output, f.param("output"), {"input_text", "output_text", "text"});
  c.turns.push_back({"tool", {Part::tool_result(call_id, text, param)}, "", param});
}

void read_item(const Json& item, std::size_t i, MediaReader& media, Conversation& c) {
  const std::string param = element_param("input", i);
  if (!item.is_object())
    throw invalid_request(param, param + ": expected an input item object, got " + json_preview(item));
  FieldReader f(item, param + ".");
  const std::string type = f.string("type").value_or("message");
  if (type == "message") return read_message_item(f, param, media, c);
  if (type == "function_call") return read_function_call(f, param, c);
  if (type == "function_call_output") return read_function_call_output(f, param, c);
  if (type == "reasoning") return;  // a previous reply's reasoning: templates drop it from history
  throw unsupported(f.param("type"), f.param("type") + ": " + quote_value(type) +
                                         " items are not supported (message, function_call, "
                                         "function_call_output and reasoning are)");
}

ApiError previous_not_found(const std::string& id) {
  ApiError e = invalid_request("previous_response_id", "Previous response with id " + quote_value(id) +
                                                           " not found (responses with store: false are not kept, and "
                                                           "the server keeps only the most recent ones)");
  e.status = 404;
  e.code = "previous_response_not_found";
  return e;
}

// previous_response_id: the stored conversation (chat messages), after the instructions and before
// the input.
void read_previous(const FieldReader& f, const PreviousLookup& lookup, MediaReader& media, Conversation& c) {
  const Json* v = f.get("previous_response_id");
  if (v == nullptr || v->is_null()) return;
  if (!v->is_string() || v->get_ref<const std::string&>().empty())
    throw invalid_request("previous_response_id", "previous_response_id: expected a response id, got " + json_preview(*v));
  const std::string id = v->get<std::string>();
  std::optional<nlohmann::json> stored = lookup ? lookup(id) : std::nullopt;
  if (!stored) throw previous_not_found(id);
  const Json messages(*stored);
  for (Turn& turn : read_chat_messages(messages, media, "previous_response_id", "previous_response_id").turns)
    c.turns.push_back(std::move(turn));
}

// instructions (a system turn), the previous response's conversation, then the input.
Conversation read_input(const FieldReader& f, const PreviousLookup& lookup, const JsonLimits& limits) {
  Conversation c;
  MediaReader media(limits.media);
  if (auto instructions = f.string("instructions"))
    c.turns.push_back({"system", {Part::text_part(*instructions, "instructions")}, "", "instructions"});
  read_previous(f, lookup, media, c);
  const Json* input = f.get("input");
  if (input == nullptr) throw invalid_request("input", "input: required (a string or an array of items)");
  if (input->is_string()) {
    c.turns.push_back({"user", {Part::text_part(input->get<std::string>(), "input")}, "", "input"});
    return c;
  }
  if (!input->is_array() || input->empty())
    throw invalid_request("input", "input: expected a string or a non-empty array of items, got " + json_preview(*input));
  for (std::size_t i = 0; i < input->size(); ++i) {
    check_cancelled("the request's translation");  // base/cancel.h
    read_item((*input)[i], i, media, c);
  }
  return c;
}

// A Responses tool {type: function, name, description, parameters, strict}.
Tool read_responses_tool(const FieldReader& f, const std::string&) {
  const std::string type = f.string("type").value_or("");
  if (type != "function")
    throw unsupported(f.param("type"), f.param("type") + ": " + quote_value(type) +
                                           " tools are not supported (only function tools are)");
  return read_function(f, "parameters", false);
}

// A Responses tool_choice object {type: function, name}.
std::string responses_forced_name(const FieldReader& c) {
  const std::string type = c.string("type").value_or("");
  if (type != "function")
    throw invalid_request("tool_choice.type", "tool_choice.type: " + quote_value(type) + " is not \"function\"");
  return required_string(c, "name");
}

constexpr ToolSurface kResponsesTools{&read_responses_tool, &responses_forced_name,
                                      "auto, none, required or {\"type\": \"function\", \"name\": ...}"};

// text.format: text (nothing), json_object, json_schema {name, schema, strict} (flat), or ogai's
// regex: read by the chat reader from the response_format it means (DOM nodes, not text).
void read_text_format(const FieldReader& f, ApiRequest& r) {
  const Json* text = f.get("text");
  if (text == nullptr) return;
  if (!text->is_object()) throw invalid_request("text", "text: expected an object, got " + json_preview(*text));
  const Json* format = FieldReader(*text, "text.").get("format");
  if (format == nullptr) return;
  if (!format->is_object())
    throw invalid_request("text.format", "text.format: expected an object, got " + json_preview(*format));
  FieldReader t(*format, "text.format.");
  const std::string type = t.string("type").value_or("");
  Json wrapper = Json::object();
  if (type == "text") return;
  if (type == "json_object" || type == "regex") {
    wrapper["response_format"] = *format;
  } else if (type == "json_schema") {
    Json schema = Json::object();
    for (const char* name : {"name", "description", "schema", "strict"})
      if (const Json* v = t.get(name)) schema[name] = *v;
    wrapper["response_format"] = {{"type", "json_schema"}, {"json_schema", std::move(schema)}};
  } else {
    throw invalid_request("text.format.type", "text.format.type: " + quote_value(type) +
                                                  " is not one of text, json_object, json_schema, regex");
  }
  try {
    r.options.response_format = read_response_format(FieldReader(wrapper), &r.unenforced);
  } catch (const ApiError& e) {
    throw responses_error_names(e);
  }
}

// reasoning.effort -> the template variable reasoning_effort (chat_template_kwargs wins).
void read_reasoning(const FieldReader& f, ChatOptions& chat) {
  const Json* v = f.get("reasoning");
  if (v == nullptr || v->is_null()) return;
  if (!v->is_object()) throw invalid_request("reasoning", "reasoning: expected an object, got " + json_preview(*v));
  const Json* effort = FieldReader(*v, "reasoning.").get("effort");
  if (effort == nullptr) return;
  if (!effort->is_string() || (*effort != "low" && *effort != "medium" && *effort != "high" && *effort != "minimal"))
    throw invalid_request("reasoning.effort", "reasoning.effort: expected minimal, low, medium or high, got " +
                                                  json_preview(*effort));
  chat.template_kwargs.emplace("reasoning_effort", effort->dump());
}

void read_options(const FieldReader& f, ApiRequest& r) {
  if (f.boolean("background").value_or(false))
    throw unsupported("background", "background: responses are answered in the request");
  read_max_tokens(f, "max_output_tokens", r.options);
  read_sampling(f, r.options.sampling, {"temperature", "top_p", "top_k", "min_p", "seed"});
  r.stream = f.boolean("stream").value_or(false);
}

Json echoed(const Json& body, const char* name) {
  auto it = body.find(name);
  return it == body.end() ? Json(nullptr) : *it;
}

// OpenAI's bounds on `metadata`: at most 16 pairs, keys up to 64 characters, string values up to
// 512. The object is echoed in the response and kept in the store, so it is checked, not trusted.
constexpr std::size_t kMaxMetadataPairs = 16, kMaxMetadataKey = 64, kMaxMetadataValue = 512;

void check_metadata(const Json& metadata) {
  if (metadata.is_null()) return;
  if (!metadata.is_object())
    throw invalid_request("metadata", "metadata: expected an object of string pairs, got " + json_preview(metadata));
  if (metadata.size() > kMaxMetadataPairs)
    throw invalid_request("metadata", fmt::format("metadata: at most {} pairs, got {}", kMaxMetadataPairs,
                                                  metadata.size()));
  for (auto it = metadata.begin(); it != metadata.end(); ++it) {
    if (it.key().size() > kMaxMetadataKey)
      throw invalid_request("metadata", fmt::format("metadata: keys are at most {} characters, got one of {}",
                                                    kMaxMetadataKey, it.key().size()));
    if (!it->is_string() || it->get_ref<const std::string&>().size() > kMaxMetadataValue)
      throw invalid_request("metadata", fmt::format("metadata.{}: expected a string of at most {} characters",
                                                    it.key().substr(0, kMaxMetadataKey), kMaxMetadataValue));
  }
}

Json echo_of(const Json& body) {
  Json metadata = echoed(body, "metadata");
  check_metadata(metadata);
  Json echo = {{"instructions", echoed(body, "instructions")},
               {"max_output_tokens", echoed(body, "max_output_tokens")},
               {"temperature", echoed(body, "temperature")},
               {"top_p", echoed(body, "top_p")},
               {"metadata", metadata.is_object() ? metadata : Json::object()},
               {"user", echoed(body, "user")}};
  for (const char* name : {"tools", "tool_choice", "parallel_tool_calls", "text", "previous_response_id", "reasoning"})
    if (auto it = body.find(name); it != body.end() && !it->is_null()) echo[name] = *it;
  return echo;
}

}  // namespace

ApiError responses_error_names(ApiError e) {
  constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {".function.parameters", ".parameters"}, {".function.description", ".description"},
      {"tool_choice.function.name", "tool_choice.name"}, {".function.name", ".name"}, {".function.strict", ".strict"},
      {"response_format.json_schema.", "text.format."}, {"response_format", "text.format"},
      {"reasoning_effort", "reasoning.effort"}, {"max_tokens", "max_output_tokens"}};
  auto replace_all = [](std::string& s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
  };
  for (const auto& [from, to] : kNames) {
    replace_all(e.param, from, to);
    replace_all(e.message, from, to);
  }
  if (e.param == "messages" || e.param.starts_with("messages[")) e.param = "input";
  return e;
}

ResponsesRequest parse_responses_request(const std::string& body, const JsonLimits& limits,
                                         const PreviousLookup& previous, const std::string& owner) {
  const Json j = parse_json_object(body, limits, kResponsesGrammarPaths);
  FieldReader f(j);
  ResponsesRequest out;
  ApiRequest& r = out.request;
  r.endpoint = Endpoint::kChat;
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = *model;
  Conversation conversation = read_input(f, previous, limits);
  set_conversation(r, conversation);
  read_tools(f, r, kResponsesTools);
  read_text_format(f, r);
  read_reasoning(f, r.chat);
  read_options(f, r);
  check_forced_call_format(r, "tool_choice");
  r.unknown_fields = unknown_fields(j, kResponsesFields);
  auto state = std::make_shared<ResponsesState>();
  state->previous_response_id = f.string("previous_response_id");
  state->store = f.boolean("store").value_or(true);
  state->echo = nlohmann::json(echo_of(j));
  state->echo["store"] = state->store;
  if (!conversation.turns.empty() && conversation.turns.front().origin == "instructions")
    conversation.turns.erase(conversation.turns.begin());
  if (state->store) state->conversation = chat_messages_json(conversation);  // what the store keeps
  state->owner = owner;
  r.responses = std::move(state);
  return out;
}

}  // namespace ogai::serve
