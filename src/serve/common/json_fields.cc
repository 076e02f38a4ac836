#include "serve/common/json_fields.h"

#include <cmath>
#include <limits>

#include "serve/common/api_error.h"
#include "serve/common/json_limits.h"

namespace ogai::serve {

namespace {

template <class J>
const char* type_name_of(const J& value) {
  if (value.is_boolean()) return "boolean";
  if (value.is_number()) return "number";
  return value.type_name();  // "null", "object", "array", "string", ...
}

template <class J>
std::string preview_of(const J& value) {
  // Containers are described, not dumped: dumping recurses, and a request may nest arrays
  // millions deep.
  if (value.is_array()) return "an array of " + std::to_string(value.size()) + " items";
  if (value.is_object()) return "an object of " + std::to_string(value.size()) + " keys";
  constexpr std::size_t kMax = 60;
  std::string text = value.dump(-1, ' ', false, J::error_handler_t::replace);
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

}  // namespace

const char* json_type_name(const RequestJson& value) { return type_name_of(value); }
const char* json_type_name(const nlohmann::json& value) { return type_name_of(value); }
std::string json_preview(const RequestJson& value) { return preview_of(value); }
std::string json_preview(const nlohmann::json& value) { return preview_of(value); }

FieldReader::FieldReader(const RequestJson& object, std::string prefix)
    : object_(object), prefix_(std::move(prefix)) {}

const RequestJson* FieldReader::get(const char* name) const {
  auto it = object_.find(name);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

float to_float_saturated(double value) {
  if (value > std::numeric_limits<float>::max()) return std::numeric_limits<float>::infinity();
  if (value < -std::numeric_limits<float>::max()) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(value);
}


void FieldReader::wrong_type(const char* name, const char* expected, const RequestJson& value) const {
  throw invalid_request(param(name), param(name) + ": expected " + expected + ", got " + json_type_name(value) + " " +
                                         json_preview(value));
}

std::optional<double> FieldReader::number(const char* name) const {
  const RequestJson* v = get(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) wrong_type(name, "a number", *v);
  return v->get<double>();
}

std::optional<std::int64_t> FieldReader::integer(const char* name) const {
  const RequestJson* v = get(name);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_integer() && !v->is_number_unsigned()) return v->get<std::int64_t>();
  if (v->is_number_unsigned()) {
    auto u = v->get<std::uint64_t>();
    if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return static_cast<std::int64_t>(u);
    throw invalid_request(param(name), param(name) + ": " + std::to_string(u) + " is too large");
  }
  wrong_type(name, "an integer", *v);
}

std::optional<bool> FieldReader::boolean(const char* name) const {
  const RequestJson* v = get(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) wrong_type(name, "a boolean", *v);
  return v->get<bool>();
}

std::optional<std::string> FieldReader::string(const char* name) const {
  const RequestJson* v = get(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) wrong_type(name, "a string", *v);
  return v->get<std::string>();
}

RequestJson parse_json_object(const std::string& body, const JsonLimits& limits) {
  return parse_json_body(body, limits);  // limits, syntax and shape in one pass
}

std::optional<float> FieldReader::float_number(const char* name) const {
  auto v = number(name);
  if (!v) return std::nullopt;
  return to_float_saturated(*v);
}

std::string element_param(const std::string& name, std::size_t i) { return name + "[" + std::to_string(i) + "]"; }

std::vector<std::int32_t> read_token_ids(const RequestJson& array, const std::string& field, const std::string& param,
                                         std::int64_t limit, std::string_view hint) {
  std::vector<std::int32_t> ids;
  ids.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i) {
    const RequestJson& t = array[i];
    if (!t.is_number_integer() || t.get<std::int64_t>() < 0 || t.get<std::int64_t>() >= limit) {
      std::string message = element_param(param, i) + " is " + json_preview(t) + ", not a token id (an integer in [0, " +
                            std::to_string(limit) + "))";
      if (!hint.empty()) message += "; " + std::string(hint);
      throw invalid_request(field, message);
    }
    ids.push_back(static_cast<std::int32_t>(t.get<std::int64_t>()));
  }
  return ids;
}

std::string content_text(const RequestJson& content, const std::string& param,
                         std::initializer_list<std::string_view> text_types) {
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array())
    throw invalid_request(param, param + ": expected a string or an array of content parts, got " +
                                     std::string(json_type_name(content)));
  std::string text;
  for (std::size_t i = 0; i < content.size(); ++i) {
    const std::string part_param = element_param(param, i);
    if (!content[i].is_object()) throw invalid_request(part_param, part_param + ": expected a content part object");
    FieldReader f(content[i], part_param + ".");
    auto type = f.string("type");
    bool is_text = false;
    for (std::string_view t : text_types) is_text = is_text || (type && *type == t);
    if (!is_text) {
      std::string names;
      for (std::string_view t : text_types) names += (names.empty() ? "\"" : ", \"") + std::string(t) + "\"";
      throw unsupported(f.param("type"), f.param("type") + ": only text content parts (" + names +
                                             ") are supported, got " + (type ? "\"" + *type + "\"" : std::string("none")));
    }
    auto part_text = f.string("text");
    if (!part_text) throw invalid_request(f.param("text"), f.param("text") + ": required in a text part");
    if (i > 0) text += "\n";
    text += *part_text;
  }
  return text;
}

}  // namespace ogai::serve
