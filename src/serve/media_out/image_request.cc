#include "serve/media_out/image_request.h"

#include <array>
#include <charconv>
#include <climits>

#include "serve/common/api_error.h"
#include "serve/common/json_fields.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

constexpr std::array<std::string_view, 15> kFields{"model", "prompt", "n", "size", "response_format", "output_format",
                                                   "quality", "style", "background", "moderation", "seed", "steps",
                                                   "inputs", "user", "metadata"};
constexpr std::int64_t kMaxSteps = 10000;

std::optional<std::int64_t> dimension(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1 || v > 16384) return std::nullopt;
  return v;
}

void read_size(const std::string& size, ImageRequest& r) {
  if (size == "auto") return;
  const auto x = size.find('x');
  const auto w = x == std::string::npos ? std::nullopt : dimension(std::string_view(size).substr(0, x));
  const auto h = x == std::string::npos ? std::nullopt : dimension(std::string_view(size).substr(x + 1));
  if (!w || !h)
    throw invalid_request("size", "size is " + quote_value(size) + "; it must be 'WIDTHxHEIGHT' (each 1..16384) or 'auto'");
  r.width = w, r.height = h;
}

void read_prompt(const RequestJson* prompt, ImageRequest& r) {
  if (!prompt) throw invalid_request("prompt", "prompt: required, the text (or token ids) to draw");
  if (prompt->is_string()) {
    r.prompt = prompt->get<std::string>();
    if (r.prompt.empty()) throw invalid_request("prompt", "prompt is empty");
    return;
  }
  if (!prompt->is_array() || prompt->empty())
    throw invalid_request("prompt", "prompt is " + json_preview(*prompt) + "; it must be a string or an array of token ids");
  std::vector<TokenId> ids;
  for (std::int32_t id : read_token_ids(*prompt, "prompt", "prompt")) ids.push_back(static_cast<TokenId>(id));
  r.prompt_ids = std::move(ids);
}

void refuse_unless(const FieldReader& f, const char* field, std::initializer_list<std::string_view> allowed,
                   const std::string& why) {
  const auto value = f.string(field);
  if (!value) return;
  for (auto a : allowed)
    if (*value == a) return;
  throw invalid_request(field, std::string(field) + " is " + quote_value(*value) + "; " + why);
}

}  // namespace

ImageHttpRequest parse_image_request(std::string_view body, const JsonLimits& limits) {
  const RequestJson doc = parse_json_object(std::string(body), limits);
  FieldReader f(doc);
  ImageHttpRequest r;
  r.unknown_fields = unknown_fields(doc, kFields);
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = std::move(*model);
  read_prompt(f.get("prompt"), r.images);
  if (auto n = f.integer("n")) {
    if (*n < 1 || *n > 8) throw invalid_request("n", "n is " + std::to_string(*n) + "; it must be in 1..8");
    r.images.n = static_cast<int>(*n);
  }
  if (auto size = f.string("size")) read_size(*size, r.images);
  refuse_unless(f, "response_format", {"b64_json"}, "ogai keeps no image store to link to: use 'b64_json'");
  refuse_unless(f, "output_format", {"png"}, "ogai encodes PNG only");
  refuse_unless(f, "background", {"auto", "opaque"}, "the package's images are RGB without alpha");
  for (const char* field : {"quality", "style", "moderation"})
    if (f.get(field))
      throw invalid_request(field, std::string(field) + " cannot be honoured: v1 packages declare no " + field + " role");
  r.images.seed = f.integer("seed");
  if (auto steps = f.integer("steps")) {
    if (*steps < 1 || *steps > kMaxSteps)
      throw invalid_request("steps", "steps is " + std::to_string(*steps) + "; it must be in 1.." +
                                         std::to_string(kMaxSteps));
    r.images.steps = *steps;
  }
  if (const RequestJson* inputs = f.get("inputs")) {
    if (!inputs->is_object()) throw invalid_request("inputs", "inputs must be an object of NAME: JSON array");
    for (auto it = inputs->begin(); it != inputs->end(); ++it) {
      if (!it.value().is_array() && !it.value().is_number() && !it.value().is_boolean())
        throw invalid_request("inputs." + it.key(), "inputs." + it.key() + " is " + json_preview(it.value()) +
                                                        "; it must be a nested array or a number");
      r.images.inputs[it.key()] = it.value().dump();
    }
  }
  f.string("user");
  return r;
}

}  // namespace ogai::serve
