#include "serve/common/response_format.h"

#include "serve/common/api_error.h"

namespace ogai::serve {
namespace {

ResponseFormat json_schema_format(const FieldReader& format) {
  const RequestJson* spec = format.get("json_schema");
  if (spec == nullptr || !spec->is_object())
    throw invalid_request("response_format.json_schema",
                          "response_format.json_schema: required (an object with \"name\" and \"schema\")");
  FieldReader f(*spec, "response_format.json_schema.");
  f.string("name");  // type-checked; OpenAI requires it, ogai does not use it
  const RequestJson* schema = f.get("schema");
  if (schema == nullptr || !(schema->is_object() || schema->is_boolean()))
    throw invalid_request("response_format.json_schema.schema",
                          "response_format.json_schema.schema: required (a JSON Schema object)");
  return {ResponseFormat::Kind::kJsonSchema, schema->dump(), f.boolean("strict").value_or(false)};
}

ResponseFormat text_format(const FieldReader& format, ResponseFormat::Kind kind, const char* key) {
  auto text = format.string(key);
  if (!text) throw invalid_request(format.param(key), format.param(key) + ": required (a string)");
  return {kind, *text, true};
}

}  // namespace

std::string unenforced_header(const std::vector<UnenforcedKeyword>& unenforced) {
  std::string out;
  for (std::size_t i = 0; i < unenforced.size() && i < 8; ++i) {
    const auto& u = unenforced[i];
    out += (i ? "; " : "") + u.keyword + " '" + u.value + "' at '" + u.pointer + "'";
  }
  if (unenforced.size() > 8) out += "; ...";
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  return out;
}

std::optional<ResponseFormat> read_response_format(const FieldReader& fields, std::vector<UnenforcedKeyword>* unenforced) {
  const RequestJson* value = fields.get("response_format");
  if (value == nullptr) return std::nullopt;
  if (!value->is_object())
    throw invalid_request("response_format", "response_format: expected an object, got " + json_preview(*value));
  FieldReader format(*value, "response_format.");
  const std::string type = format.string("type").value_or("text");
  ResponseFormat out;
  if (type == "text") return std::nullopt;
  if (type == "json_object") out = {ResponseFormat::Kind::kJsonObject, "", true};
  else if (type == "json_schema") out = json_schema_format(format);
  else if (type == "regex") out = text_format(format, ResponseFormat::Kind::kRegex, "regex");
  else if (type == "grammar") out = text_format(format, ResponseFormat::Kind::kGrammar, "grammar");
  else
    throw invalid_request("response_format.type", "response_format.type: '" + type +
                                                      "' is not one of text, json_object, json_schema, regex, grammar");
  if (auto ws = format.integer("whitespace")) {  // ogai's extension: blanks allowed between JSON tokens
    if (*ws < 0 || *ws > 256)
      throw invalid_request("response_format.whitespace", "response_format.whitespace: expected 0 to 256");
    out.whitespace = static_cast<int>(*ws);
  }
  // The unenforced keywords are found by compiling the schema: done here, on the route thread, only
  // for small schemas (fast); a larger one is compiled on the grammar pool alone (no header).
  if (unenforced && out.kind == ResponseFormat::Kind::kJsonSchema && out.text.size() <= kAnnotationScanBytes) try {
    auto annotations = check_response_format_annotations(out);
    *unenforced = std::move(annotations);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUnsupported) throw unsupported("response_format", e.what());
    throw invalid_request("response_format", e.what());
  }
  return out;
}

void check_response_format_field(const ResponseFormat& format) {
  try {
    check_response_format(format);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kUnsupported) throw unsupported("response_format", e.what());
    if (e.code() == ErrorCode::kCancelled) throw;
    throw invalid_request("response_format", e.what());
  }
}

}  // namespace ogai::serve
