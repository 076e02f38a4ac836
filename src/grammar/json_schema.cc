#include "grammar/json_schema.h"

#include <fmt/format.h>

#include <cmath>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {
namespace {

const std::set<std::string>& annotation_keywords() {
  static const std::set<std::string> k = {"title", "description", "default", "examples", "example", "$schema", "$id",
                                          "$comment", "$anchor", "deprecated", "readOnly", "writeOnly", "discriminator",
                                          "nullable", "contentEncoding", "contentMediaType", "$defs", "definitions"};
  return k;
}

const std::set<std::string>& validation_keywords() {
  static const std::set<std::string> k = {
      "type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf", "properties", "required", "additionalProperties",
      "items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength",
      "pattern", "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};
  return k;
}

const std::set<std::string> kObjectKeywords = {"properties", "required", "additionalProperties"};
const std::set<std::string> kArrayKeywords = {"items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems"};
const std::set<std::string> kStringKeywords = {"minLength", "maxLength", "pattern", "format"};
const std::set<std::string> kNumberKeywords = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};

}  // namespace

unsigned type_bit(const std::string& t) {
  if (t == "null") return kNull;
  if (t == "boolean") return kBool;
  if (t == "integer") return kInteger;
  if (t == "number") return kInteger | kFraction;
  if (t == "string") return kString;
  if (t == "array") return kArray;
  if (t == "object") return kObject;
  return 0;
}

unsigned value_bits(const Json& v) {
  if (v.is_null()) return kNull;
  if (v.is_boolean()) return kBool;
  if (v.is_number_integer() || v.is_number_unsigned()) return kInteger;
  if (v.is_number()) return std::floor(v.get<double>()) == v.get<double>() ? kInteger : kFraction;
  if (v.is_string()) return kString;
  if (v.is_array()) return kArray;
  return kObject;
}

std::string escape_pointer(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string compact(const Json& v) { return v.dump(-1, ' ', false, Json::error_handler_t::strict); }

Grammar SchemaCompiler::compile() {
  Sequence top = {j_.ws()};
  GrammarBuilder::append(top, schema(root_, "", 0));
  return b_.finish(b_.rule("root", {top}));
}

void SchemaCompiler::unsupported(const std::string& ptr, const std::string& what) const {
  fail(ErrorCode::kUnsupported, where_, "{} at '#{}' (the schema cannot be enforced, so it is refused)", what, ptr);
}

void SchemaCompiler::invalid(const std::string& ptr, const std::string& what) const {
  fail(ErrorCode::kInvalidArgument, where_, "{} at '#{}'", what, ptr);
}

std::set<std::string> SchemaCompiler::keywords(const Json& s, const std::string& ptr) const {
  std::set<std::string> out;
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& k = it.key();
    if (annotation_keywords().count(k) || k.rfind("x-", 0) == 0) continue;
    if (!validation_keywords().count(k)) unsupported(ptr + "/" + escape_pointer(k), fmt::format("keyword '{}'", k));
    out.insert(k);
  }
  return out;
}

void SchemaCompiler::only(const std::set<std::string>& present, const std::set<std::string>& allowed, const std::string& key, const std::string& ptr) const {
  for (const auto& k : present)
    if (!allowed.count(k)) unsupported(ptr, fmt::format("keyword '{}' beside '{}'", k, key));
}

Sequence SchemaCompiler::schema(const Json& s, const std::string& ptr, int depth) {
  if (depth > kMaxSchemaDepth) invalid(ptr, fmt::format("the schema nests deeper than {} levels", kMaxSchemaDepth));
  if (s.is_boolean()) {
    if (!s.get<bool>()) invalid(ptr, "the schema 'false' allows no value");
    return {j_.value()};
  }
  if (!s.is_object()) invalid(ptr, "expected a schema (an object or a boolean), got " + compact(s));
  const std::set<std::string> kw = keywords(s, ptr);
  if (kw.count("$ref")) {
    only(kw, {"$ref"}, "$ref", ptr);
    return {GrammarBuilder::ref(ref_rule(s.at("$ref"), ptr + "/$ref", depth))};
  }
  if (kw.count("allOf")) {
    only(kw, {"allOf"}, "allOf", ptr);
    const Json& all = s.at("allOf");
    if (!all.is_array() || all.size() != 1) unsupported(ptr + "/allOf", "'allOf' with other than exactly one schema");
    return schema(all[0], ptr + "/allOf/0", depth + 1);
  }
  for (const char* key : {"anyOf", "oneOf"})
    if (kw.count(key)) {
      only(kw, {key}, key, ptr);
      return any_of(s.at(key), ptr + "/" + key, std::string(key) == "oneOf", depth);
    }
  if (kw.count("enum") || kw.count("const")) return literals(s, kw, ptr);
  std::vector<std::string> types = type_list(s, kw, ptr);
  if (types.empty()) return {j_.value()};
  std::vector<Sequence> alts;
  for (const auto& t : types) alts.push_back(typed(s, t, ptr, depth));
  if (alts.size() == 1) return alts[0];
  return {GrammarBuilder::ref(b_.rule("#" + ptr, std::move(alts)))};
}

std::vector<std::string> SchemaCompiler::type_list(const Json& s, const std::set<std::string>& kw, const std::string& ptr) const {
  std::vector<std::string> types;
  if (auto it = s.find("type"); it != s.end()) {
    if (it->is_string()) types.push_back(it->get<std::string>());
    else if (it->is_array() && !it->empty())
      for (const auto& t : *it) {
        if (!t.is_string()) invalid(ptr + "/type", "expected type names, got " + compact(t));
        types.push_back(t.get<std::string>());
      }
    else invalid(ptr + "/type", "expected a type name or a non-empty list of them, got " + compact(*it));
    for (const auto& t : types)
      if (!type_bit(t)) invalid(ptr + "/type", "unknown type '" + t + "'");
    return types;
  }
  auto any = [&](const std::set<std::string>& group) {
    for (const auto& k : group) if (kw.count(k)) return true;
    return false;
  };
  if (any(kObjectKeywords)) types.push_back("object");
  if (any(kArrayKeywords)) types.push_back("array");
  if (any(kStringKeywords)) types.push_back("string");
  if (any(kNumberKeywords)) types.push_back("number");
  if (types.size() > 1) unsupported(ptr, "keywords of several types without 'type'");
  return types;
}

Sequence SchemaCompiler::typed(const Json& s, const std::string& t, const std::string& ptr, int depth) {
  if (t == "null") return {j_.null()};
  if (t == "boolean") return {j_.boolean()};
  if (t == "string") return string_schema(s, ptr);
  if (t == "integer") return integer_schema(s, ptr);
  if (t == "number") return number_schema(s, ptr);
  if (t == "object") return object_schema(s, ptr, depth);
  return array_schema(s, ptr, depth);
}

Sequence SchemaCompiler::literals(const Json& s, const std::set<std::string>& kw, const std::string& ptr) {
  const char* key = kw.count("enum") ? "enum" : "const";
  only(kw, {key, "type"}, key, ptr);
  if (kw.count("enum") && kw.count("const")) unsupported(ptr, "'enum' beside 'const'");
  std::vector<Json> values;
  if (kw.count("enum")) {
    const Json& e = s.at("enum");
    if (!e.is_array() || e.empty()) invalid(ptr + "/enum", "expected a non-empty array");
    values.assign(e.begin(), e.end());
  } else {
    values.push_back(s.at("const"));
  }
  unsigned allowed = kAll;
  if (kw.count("type")) {
    allowed = 0;
    for (const auto& t : type_list(s, kw, ptr)) allowed |= type_bit(t);
  }
  std::vector<std::string> texts;
  std::size_t bytes = 0;
  for (const Json& v : values) {
    if (!(value_bits(v) & allowed)) continue;  // a value of another type never validates
    texts.push_back(compact(v));
    bytes += texts.back().size();
    if (bytes > kMaxLiteralBytes)
      invalid(ptr + "/" + key, fmt::format("the values take more than {} bytes (the compile-time bound)", kMaxLiteralBytes));
  }
  if (texts.empty()) invalid(ptr + "/" + key, "no value is of the schema's 'type'");
  return j_.literal_set(std::move(texts), "#" + ptr + "/" + key);
}

const Json& SchemaCompiler::resolve(const std::string& pointer, const std::string& ptr) const {
  const Json* at = &root_;
  std::size_t pos = 0;
  while (pos < pointer.size()) {
    if (pointer[pos] != '/') invalid(ptr, "'$ref' '#" + pointer + "' is not a JSON pointer");
    std::size_t next = pointer.find('/', pos + 1);
    if (next == std::string::npos) next = pointer.size();
    std::string token;
    for (std::size_t i = pos + 1; i < next; ++i) {
      if (pointer[i] == '~' && i + 1 < next && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        token += pointer[i];
      }
    }
    if (at->is_object() && at->contains(token)) {
      at = &at->at(token);
    } else if (at->is_array() && !token.empty() && token.size() < 10 &&
               token.find_first_not_of("0123456789") == std::string::npos && std::stoull(token) < at->size()) {
      at = &(*at)[std::stoull(token)];
    } else {
      invalid(ptr, "'$ref' '#" + pointer + "' names nothing in the schema");
    }
    pos = next;
  }
  return *at;
}

std::uint32_t SchemaCompiler::ref_rule(const Json& ref, const std::string& ptr, int depth) {
  if (!ref.is_string()) invalid(ptr, "expected a string");
  const std::string r = ref.get<std::string>();
  if (r.empty() || r[0] != '#') unsupported(ptr, "'$ref' '" + r + "' outside this schema");
  const std::string pointer = r.substr(1);
  if (auto it = refs_.find(pointer); it != refs_.end()) return it->second;
  const std::uint32_t id = b_.add_rule("#" + pointer);
  refs_[pointer] = id;
  const Json& target = resolve(pointer, ptr);
  b_.add_alternative(id, schema(target, pointer, depth + 1));
  return id;
}

Sequence SchemaCompiler::any_of(const Json& list, const std::string& ptr, bool one_of, int depth) {
  if (!list.is_array() || list.empty()) invalid(ptr, "expected a non-empty array of schemas");
  if (one_of) check_disjoint(list, ptr);
  std::vector<Sequence> alts;
  for (std::size_t i = 0; i < list.size(); ++i) alts.push_back(schema(list[i], ptr + "/" + std::to_string(i), depth + 1));
  if (alts.size() == 1) return alts[0];
  return {GrammarBuilder::ref(b_.rule("#" + ptr, std::move(alts)))};
}

}  // namespace ogai::grammar::schema

namespace ogai::grammar {

using schema::Json;
using schema::SchemaCompiler;

Grammar compile_json_schema(std::string_view text, const std::string& where) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::kInvalidArgument, where, "the schema is not valid JSON: {}", e.what());
  }
  try {
    return SchemaCompiler(root, where).compile();
  } catch (const nlohmann::json::exception& e) {  // a value of an unexpected type deep inside
    fail(ErrorCode::kInvalidArgument, where, "the schema could not be read: {}", e.what());
  }
}

Grammar compile_json_object(const std::string& where) {
  GrammarBuilder b(where);
  JsonRules j(b);
  const std::uint32_t root = b.rule("root", {{j.ws(), j.object()}});
  return b.finish(root);
}

}  // namespace ogai::grammar
