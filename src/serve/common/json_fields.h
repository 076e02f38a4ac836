// Typed reads of optional fields in a JSON request object. A field that is absent or null reads
// as "not set"; a field of the wrong type throws ApiError 400 naming the field and the type it
// should have. Holds a reference to the object; the object must outlive the reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "serve/common/json_limits.h"

namespace ogai::serve {

// JSON type names as a client reads them: "string", "number", "object", "array", "boolean", "null".
const char* json_type_name(const RequestJson& value);
const char* json_type_name(const nlohmann::json& value);

// A JSON number as a float; beyond float's range it becomes +-infinity (which the engine's range
// checks then refuse, quoting it) instead of an undefined conversion.
float to_float_saturated(double value);

// For error messages: a scalar as compact JSON cut to 60 characters; an array or object as
// "an array of N items" / "an object of N keys" (never dumped: that would recurse).
std::string json_preview(const RequestJson& value);
std::string json_preview(const nlohmann::json& value);

class FieldReader {
 public:
  // `prefix` is prepended to field names in errors (e.g. "stream_options.").
  explicit FieldReader(const RequestJson& object, std::string prefix = {});

  // The field's value, or nullptr when it is absent or null.
  const RequestJson* get(const char* name) const;
  std::optional<double> number(const char* name) const;
  std::optional<float> float_number(const char* name) const;     // number(), saturated to float
  std::optional<std::int64_t> integer(const char* name) const;   // an integral JSON number
  std::optional<bool> boolean(const char* name) const;
  std::optional<std::string> string(const char* name) const;

  // The field name as errors show it.
  std::string param(const char* name) const { return prefix_ + name; }

 private:
  [[noreturn]] void wrong_type(const char* name, const char* expected, const RequestJson& value) const;

  const RequestJson& object_;
  std::string prefix_;
};

// "name[i]": an array element as errors name it.
std::string element_param(const std::string& name, std::size_t i);

// The elements of `array` (named `param` in errors, e.g. "input[2]") as token ids: each an integral
// number in [0, limit) (limit: a vocabulary size when the route knows it, else 2^31). Another
// element is an ApiError 400 on `field` naming the element, its value and the range, followed by
// `hint` (what the field accepts) when given. Does not check emptiness: routes differ there.
std::vector<std::int32_t> read_token_ids(const RequestJson& array, const std::string& field, const std::string& param,
                                         std::int64_t limit = std::int64_t{1} << 31, std::string_view hint = {});

// A message's content (`param` names it in errors): a string, or an array of {"type", "text"}
// parts whose type is one of `text_types`, joined with "\n". Another part type is an ApiError
// `unsupported` naming the part's `type`; any other shape a 400 naming the part.
std::string content_text(const RequestJson& content, const std::string& param,
                         std::initializer_list<std::string_view> text_types);

// Parses a request body within JsonLimits in one pass (parse_json_body, json_limits.h); not JSON,
// not an object, or over a limit -> ApiError 400.
RequestJson parse_json_object(const std::string& body, const JsonLimits& limits = {});

}  // namespace ogai::serve
