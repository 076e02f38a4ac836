// The chat / completions body read once (parse_json_object: limits and DOM in one pass) into an
// ApiRequest: the shared fields (request_fields.h), the endpoint's prompt (openai/parse_prompt.h),
// tools and response formats; the refusals of unsupported features.
#include <charconv>
#include <climits>

#include "ogai/sampling_fields.h"
#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"
#include "serve/common/parse_tools.h"
#include "serve/common/request_fields.h"
#include "serve/common/response_format.h"
#include "serve/common/unknown_fields.h"
#include "serve/openai/parse_prompt.h"

namespace ogai::serve {
namespace {

std::map<TokenId, float> read_logit_bias(const FieldReader& f) {
  const RequestJson* v = f.get("logit_bias");
  if (v == nullptr) return {};
  if (!v->is_object())
    throw invalid_request("logit_bias",
                          "logit_bias: expected an object of token id -> bias, got " + std::string(json_type_name(*v)));
  std::map<TokenId, float> bias;
  for (const auto& [key, value] : v->items()) {
    TokenId id = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
    if (ec != std::errc() || end != key.data() + key.size() || key.empty())
      throw invalid_request("logit_bias", "logit_bias: key '" + key + "' is not a token id (an integer)");
    if (!value.is_number())
      throw invalid_request("logit_bias", "logit_bias[" + key + "]: expected a number, got " + json_preview(value));
    bias[id] = to_float_saturated(value.get<double>());
  }
  return bias;
}

// n choices share one prefill (choice i samples with seed + i). The upper bound is the server's
// --max-concurrent, checked at admission.
constexpr std::int64_t kMaxChoices = 128;
void read_n(const FieldReader& f, ApiRequest& r) {
  auto n = f.integer("n");
  if (!n) return;
  if (*n < 1 || *n > kMaxChoices)
    throw invalid_request("n", "n: " + std::to_string(*n) + " is not in [1, " + std::to_string(kMaxChoices) + "]");
  r.n = static_cast<int>(*n);
}

void check_combinations(const ApiRequest& r) {
  if (r.echo && r.stream)
    throw unsupported("echo", "echo: streaming responses do not echo the prompt; use \"stream\": false");
  if (r.best_of != 0 && r.best_of < r.n)
    throw invalid_request("best_of", "best_of: " + std::to_string(r.best_of) + " is less than n (" +
                                         std::to_string(r.n) + "); best_of must be at least n");
  if (r.best_of > 1 && r.stream)
    throw invalid_request("best_of",
                          "best_of: the candidates are ranked once they all ended, so best_of > 1 "
                          "cannot be streamed; use \"stream\": false");
}

ApiRequest parse_common(const std::string& body, Endpoint endpoint,
                        void (*read_prompt)(const FieldReader&, const JsonLimits&, ApiRequest&),
                        const JsonLimits& limits) {
  const RequestJson j = parse_json_object(
      body, limits, endpoint == Endpoint::kChat ? std::span<const GrammarPath>(kChatGrammarPaths)
                                                : std::span<const GrammarPath>(kCompletionGrammarPaths));
  FieldReader f(j);
  ApiRequest r;
  r.endpoint = endpoint;
  r.unknown_fields = unknown_fields(j, known_fields(endpoint));
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = *model;
  read_prompt(f, limits, r);
  read_n(f, r);
  read_max_tokens(f, f.get("max_completion_tokens") ? "max_completion_tokens" : "max_tokens", r.options, r.echo);
  read_sampling(f, r.options.sampling);
  r.options.stop = read_stop(f, "stop");
  r.options.ignore_eos = f.boolean("ignore_eos").value_or(false);
  r.options.response_format = read_response_format(f, &r.unenforced);
  if (endpoint == Endpoint::kChat) read_chat_tools(f, r);  // the DOM keeps the schemas' key order
  read_stream(f, r);
  check_combinations(r);
  return r;
}

}  // namespace

std::optional<int> read_int(const FieldReader& f, const char* name) {
  auto v = f.integer(name);
  if (!v) return std::nullopt;
  if (*v < INT_MIN || *v > INT_MAX)
    throw invalid_request(f.param(name), f.param(name) + ": " + std::to_string(*v) + " is out of range");
  return static_cast<int>(*v);
}

void read_max_tokens(const FieldReader& f, const char* name, GenerationOptions& o, bool allow_zero) {
  if (auto v = read_int(f, name)) {
    const int least = allow_zero ? 0 : 1;
    if (*v < least)
      throw invalid_request(f.param(name), f.param(name) + ": " + std::to_string(*v) + " must be at least " +
                                               std::to_string(least) + (allow_zero ? "" : " (0 only with echo)"));
    o.max_new_tokens = *v;
  }
}

void read_sampling(const FieldReader& f, SamplingOptions& s, std::initializer_list<std::string_view> only) {
  auto wanted = [&](std::string_view name) {
    if (only.size() == 0) return true;
    for (std::string_view o : only)
      if (o == name) return true;
    return false;
  };
  for (const SamplingField& field : kSamplingFields) {
    if (!wanted(field.name)) continue;
    const char* name = field.name.data();
    if (auto* m = std::get_if<SamplingField::FloatMember>(&field.member)) s.** m = f.float_number(name);
    if (auto* m = std::get_if<SamplingField::IntMember>(&field.member)) s.** m = read_int(f, name);
  }
  if (wanted("seed"))
    if (auto seed = f.integer("seed")) s.seed = static_cast<std::uint64_t>(*seed);  // negative seeds wrap
  if (wanted("logit_bias")) s.logit_bias = read_logit_bias(f);
}

std::vector<std::string> read_stop(const FieldReader& f, const char* name) {
  const RequestJson* v = f.get(name);
  const std::string param = f.param(name);
  if (v == nullptr) return {};
  if (v->is_string()) return {v->get<std::string>()};
  if (!v->is_array())
    throw invalid_request(param, param + ": expected a string or an array of strings, got " +
                                     std::string(json_type_name(*v)));
  std::vector<std::string> stops;
  for (const auto& s : *v) {
    if (!s.is_string()) throw invalid_request(param, param + ": every entry must be a string, got " + json_preview(s));
    stops.push_back(s.get<std::string>());
  }
  return stops;
}

void read_stream(const FieldReader& f, ApiRequest& r) {
  r.stream = f.boolean("stream").value_or(false);
  const RequestJson* options = f.get("stream_options");
  if (options == nullptr) return;
  if (!options->is_object())
    throw invalid_request("stream_options",
                          "stream_options: expected an object, got " + std::string(json_type_name(*options)));
  r.include_usage = FieldReader(*options, "stream_options.").boolean("include_usage").value_or(false);
}

void check_forced_call_format(const ApiRequest& r, const std::string& param) {
  const auto mode = r.chat.tool_choice.mode;
  if ((mode == ToolChoice::Mode::kRequired || mode == ToolChoice::Mode::kFunction) && r.options.response_format)
    throw invalid_request(param, param + ": a forced tool call cannot be combined with response_format");
}

void set_conversation(ApiRequest& request, const Conversation& conversation) {
  request.messages = to_chat_messages(conversation);
  request.media_images = conversation.count(Part::Kind::kImage);
  request.media_audio = conversation.count(Part::Kind::kAudio);
}

ApiRequest parse_chat_request(const std::string& body, const JsonLimits& limits) {
  return parse_common(body, Endpoint::kChat, read_chat_prompt, limits);
}

ApiRequest parse_completion_request(const std::string& body, const JsonLimits& limits) {
  return parse_common(body, Endpoint::kCompletion, read_completion_prompt, limits);
}

}  // namespace ogai::serve
