#include "serve/embeddings/embeddings_api.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "serve/common/api_error.h"
#include "serve/common/json_fields.h"
#include "serve/common/unknown_fields.h"

namespace ogai::serve {
namespace {

constexpr std::string_view kFields[] = {"model", "input", "encoding_format", "dimensions", "user"};

constexpr const char* kInputShape =
    "input must be a string, an array of strings, an array of token ids or an array of token-id arrays";

// One token-id input: a non-empty array of integers in [0, 2^31).
std::vector<std::int32_t> token_ids(const RequestJson& array, const std::string& param) {
  if (array.empty()) throw invalid_request("input", param + " must not be empty");
  return read_token_ids(array, "input", param, std::int64_t{1} << 31, kInputShape);
}

void read_input(const RequestJson* input, EmbeddingsRequest& r) {
  if (input == nullptr) throw invalid_request("input", "input: required; " + std::string(kInputShape));
  if (input->is_string()) {
    if (input->get_ref<const std::string&>().empty()) throw invalid_request("input", "input must not be empty");
    r.texts.push_back(input->get<std::string>());
    return;
  }
  if (!input->is_array()) throw invalid_request("input", "input is " + json_preview(*input) + "; " + kInputShape);
  if (input->empty()) throw invalid_request("input", "input must hold at least one input");
  const RequestJson& first = (*input)[0];
  if (first.is_number()) return r.ids.push_back(token_ids(*input, "input"));
  if (!first.is_string() && !first.is_array())
    throw invalid_request("input", "input[0] is " + json_preview(first) + "; " + kInputShape);
  for (std::size_t i = 0; i < input->size(); ++i) {
    const RequestJson& item = (*input)[i];
    const std::string param = element_param("input", i);
    if (first.is_string() && item.is_string()) {
      if (item.get_ref<const std::string&>().empty()) throw invalid_request("input", param + " must not be empty");
      r.texts.push_back(item.get<std::string>());
    } else if (first.is_array() && item.is_array()) {
      r.ids.push_back(token_ids(item, param));
    } else {
      throw invalid_request("input", param + " is " + json_preview(item) + " after " + json_preview(first) +
                                         " at input[0]; " + kInputShape);
    }
  }
}

void append_float(std::string& out, float v) { fmt::format_to(std::back_inserter(out), "{}", v); }

}  // namespace

EmbeddingsRequest parse_embeddings_request(std::string_view body, const JsonLimits& limits) {
  const RequestJson doc = parse_json_object(std::string(body), limits);
  FieldReader f(doc);
  EmbeddingsRequest r;
  r.unknown_fields = unknown_fields(doc, kFields);
  auto model = f.string("model");
  if (!model) throw invalid_request("model", "model: required (the id GET /v1/models lists)");
  r.model = std::move(*model);
  read_input(f.get("input"), r);
  if (auto format = f.string("encoding_format")) {
    if (*format != "float" && *format != "base64")
      throw invalid_request("encoding_format", "encoding_format is " + quote_value(*format) +
                                                   "; it must be 'float' or 'base64'");
    r.base64 = *format == "base64";
  }
  r.dimensions = f.integer("dimensions");
  if (r.dimensions && *r.dimensions < 1)
    throw invalid_request("dimensions", "dimensions is " + std::to_string(*r.dimensions) + "; it must be at least 1");
  f.string("user");  // a string when present; not used
  return r;
}

std::string base64_encode(std::span<const std::uint8_t> bytes) {
  constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = bytes[i] << 16 | bytes[i + 1] << 8 | bytes[i + 2];
    for (int s = 18; s >= 0; s -= 6) out += kDigits[(v >> s) & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    const std::uint32_t v = bytes[i] << 16 | (rest == 2 ? bytes[i + 1] << 8 : 0);
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += rest == 2 ? kDigits[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string embeddings_response(std::span<const std::vector<float>> vectors, bool base64, const std::string& model,
                                std::int64_t prompt_tokens) {
  static_assert(std::endian::native == std::endian::little, "base64 embeddings are little-endian float32 bytes");
  for (const std::vector<float>& v : vectors)
    for (const float x : v)
      if (!std::isfinite(x)) throw internal_error("the model produced a non-finite embedding value");
  std::string out = R"({"object":"list","data":[)";
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    fmt::format_to(std::back_inserter(out), R"({}{{"object":"embedding","index":{},"embedding":)", i ? "," : "", i);
    const std::vector<float>& v = vectors[i];
    if (base64) {
      std::vector<std::uint8_t> bytes(v.size() * sizeof(float));
      if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
      out += '"' + base64_encode(bytes) + '"';
    } else {
      out += '[';
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (k) out += ',';
        append_float(out, v[k]);
      }
      out += ']';
    }
    out += '}';
  }
  out += R"(],"model":)" + nlohmann::json(model).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  fmt::format_to(std::back_inserter(out), R"(,"usage":{{"prompt_tokens":{},"total_tokens":{}}}}})", prompt_tokens,
                 prompt_tokens);
  return out;
}

}  // namespace ogai::serve
