// Reading the shared sampling / stopping fields and the refusals of unsupported features; the
// endpoint-specific prompt fields live in parse_prompt.cc.
#include <charconv>
#include <climits>

#include "ogai/sampling_fields.h"
#include "base/json_ordered.h"
#include "serve/common/api_request.h"
#include "serve/common/json_fields.h"
#include "serve/openai/parse_prompt.h"
#include "serve/common/parse_tools.h"
#include "serve/common/response_format.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

std::optional<int> to_int(const FieldReader& f, const char* name) {
  auto v = f.integer(name);
  if (!v) return std::nullopt;
  if (*v < INT_MIN || *v > INT_MAX)
    throw invalid_request(name, std::string(name) + ": " + std::to_string(*v) + " is out of range");
  return static_cast<int>(*v);
}

std::vector<std::string> read_stop(const FieldReader& f) {
  const nlohmann::json* v = f.get("stop");
  if (v == nullptr) return {};
  if (v->is_string()) return {v->get<std::string>()};
  if (!v->is_array())
    throw invalid_request("stop",
                          "stop: expected a string or an array of strings, got " + std::string(json_type_name(*v)));
  std::vector<std::string> stops;
  for (const auto& s : *v) {
    if (!s.is_string()) throw invalid_request("stop", "stop: every entry must be a string, got " + json_preview(s));
    stops.push_back(s.get<std::string>());
  }
  return stops;
}

std::map<TokenId, float> read_logit_bias(const FieldReader& f) {
  const nlohmann::json* v = f.get("logit_bias");
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

// At least 1; with echo 0 is allowed too (the prompt's logprobs, nothing generated).
void read_max_tokens(const FieldReader& f, GenerationOptions& o, bool echo) {
  const char* name = f.get("max_completion_tokens") ? "max_completion_tokens" : "max_tokens";
  if (auto v = to_int(f, name)) {
    const int least = echo ? 0 : 1;
    if (*v < least)
      throw invalid_request(name, std::string(name) + ": " + std::to_string(*v) + " must be at least " +
                                      std::to_string(least) + (echo ? "" : " (0 only with echo)"));
    o.max_new_tokens = *v;
  }
}

void read_sampling(const FieldReader& f, SamplingOptions& s) {
  for (const SamplingField& field : kSamplingFields) {
    const char* name = field.name.data();
    if (auto* m = std::get_if<SamplingField::FloatMember>(&field.member)) s.** m = f.float_number(name);
    if (auto* m = std::get_if<SamplingField::IntMember>(&field.member)) s.** m = to_int(f, name);
  }
  if (auto seed = f.integer("seed")) s.seed = static_cast<std::uint64_t>(*seed);  // negative seeds wrap
  s.logit_bias = read_logit_bias(f);
}

void read_stream(const FieldReader& f, ApiRequest& r) {
  r.stream = f.boolean("stream").value_or(false);
  const nlohmann::json* options = f.get("stream_options");
  if (options == nullptr) return;
  if (!options->is_object())
    throw invalid_request("stream_options",
                          "stream_options: expected an object, got " + std::string(json_type_name(*options)));
  r.include_usage = FieldReader(*options, "stream_options.").boolean("include_usage").value_or(false);
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

ApiRequest parse_common(const std::string& body, Endpoint endpoint,
                        void (*read_prompt)(const nlohmann::json&, const FieldReader&, ApiRequest&),
                        const JsonLimits& limits) {
  nlohmann::json j = parse_json_object(body, limits);
  FieldReader f(j);
  ApiRequest r;
  r.endpoint = endpoint;
  r.unknown_fields = unknown_fields(j, known_fields(endpoint));
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = *model;
  read_prompt(j, f, r);
  read_n(f, r);
  read_max_tokens(f, r.options, r.echo);
  read_sampling(f, r.options.sampling);
  r.options.stop = read_stop(f);
  r.options.ignore_eos = f.boolean("ignore_eos").value_or(false);
  r.options.response_format = read_response_format(f, &r.unenforced);
  if (endpoint == Endpoint::kChat) {
    read_chat_tools(f, r);
    if (!r.chat.tools.empty())  // the body passed its limits and its parse already
      keep_parameter_order(parse_ordered_json(body, "body").at("tools"), r.chat);
  }
  read_stream(f, r);
  if (r.echo && r.stream)
    throw unsupported("echo", "echo: streaming responses do not echo the prompt; use \"stream\": false");
  if (r.best_of != 0 && r.best_of < r.n)
    throw invalid_request("best_of", "best_of: " + std::to_string(r.best_of) + " is less than n (" +
                                         std::to_string(r.n) + "); best_of must be at least n");
  if (r.best_of > 1 && r.stream)
    throw invalid_request("best_of",
                          "best_of: the candidates are ranked once they all ended, so best_of > 1 "
                          "cannot be streamed; use \"stream\": false");
  return r;
}

}  // namespace

ApiRequest parse_chat_request(const std::string& body, const JsonLimits& limits) {
  return parse_common(body, Endpoint::kChat, read_chat_prompt, limits);
}

ApiRequest parse_completion_request(const std::string& body, const JsonLimits& limits) {
  return parse_common(body, Endpoint::kCompletion, read_completion_prompt, limits);
}

}  // namespace ogai::serve
