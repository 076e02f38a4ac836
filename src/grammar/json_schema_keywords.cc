// SchemaCompiler: which keywords validate (enforced / refused), the draft-4/6/7 spellings made
// 2020-12, and the formats (enforced or reported as annotations).
#include <fmt/format.h>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {
namespace {

const std::set<std::string>& enforced_keywords() {
  static const std::set<std::string> k = {
      "type", "enum", "const", "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
      "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
      "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
      "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains",
      "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern", "format",
      "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "unevaluatedProperties",
      "unevaluatedItems"};
  return k;
}

// Validation keywords of some draft that ogai does not enforce: a schema using them is refused.
const std::set<std::string>& refused_keywords() {
  static const std::set<std::string> k = {"$dynamicRef", "$recursiveRef", "disallow", "extends", "divisibleBy"};
  return k;
}

const std::set<std::string>& enforced_formats() {
  static const std::set<std::string> k = {"date", "time", "date-time", "duration", "uuid", "email",
                                          "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
                                          "uri", "uri-reference", "iri", "iri-reference"};
  return k;
}

}  // namespace

bool is_enforced_keyword(const std::string& k) { return enforced_keywords().count(k) != 0; }
bool is_refused_keyword(const std::string& k) { return refused_keywords().count(k) != 0; }
bool is_enforced_format(const std::string& f) { return enforced_formats().count(f) != 0; }

Json SchemaCompiler::normalize(const Json& s, const std::string& ptr) {
  Json out = Json::object();
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& k = it.key();
    if (k == options_.ignore_keyword_for_testing) continue;
    if (is_refused_keyword(k)) unsupported(ptr + "/" + escape_pointer(k), fmt::format("keyword '{}'", k));
    if (!is_enforced_keyword(k)) continue;  // annotations and unknown keywords
    if (k == "format") {
      if (!it->is_string()) invalid(ptr + "/format", "expected a string");
      const std::string f = it->get<std::string>();
      if (!is_enforced_format(f)) {
        if (options_.unenforced) options_.unenforced->push_back({"format", f, "#" + ptr + "/format"});
        continue;
      }
    }
    out[k] = *it;
  }
  if (out.contains("const")) {
    Json values = Json::array({out.at("const")});
    if (out.contains("enum")) {
      const Json& e = out.at("enum");
      if (!e.is_array() || e.empty()) invalid(ptr + "/enum", "expected a non-empty array");
      bool found = false;
      for (const auto& v : e) found = found || json_equal(v, values[0]);
      if (!found) values = Json::array();
    }
    out.erase("const");
    out["enum"] = values;  // may be empty: nothing validates
  } else if (out.contains("enum") && (!out.at("enum").is_array() || out.at("enum").empty())) {
    invalid(ptr + "/enum", "expected a non-empty array");
  }
  if (out.contains("items") && out.at("items").is_array()) {  // draft-7 tuples
    if (out.contains("prefixItems")) unsupported(ptr + "/items", "array 'items' beside 'prefixItems'");
    out["prefixItems"] = out.at("items");
    out.erase("items");
    if (out.contains("additionalItems")) out["items"] = out.at("additionalItems");
  }
  out.erase("additionalItems");  // without array items it has no effect
  if (out.contains("dependencies")) {
    const Json& d = out.at("dependencies");
    if (!d.is_object()) invalid(ptr + "/dependencies", "expected an object");
    Json req = out.value("dependentRequired", Json::object()), sch = out.value("dependentSchemas", Json::object());
    for (auto it = d.begin(); it != d.end(); ++it) (it->is_array() ? req : sch)[it.key()] = *it;
    out.erase("dependencies");
    if (!req.empty()) out["dependentRequired"] = req;
    if (!sch.empty()) out["dependentSchemas"] = sch;
  }
  for (const char* key : {"exclusiveMinimum", "exclusiveMaximum"}) {  // draft-4 booleans
    if (!out.contains(key) || !out.at(key).is_boolean()) continue;
    const char* plain = std::string(key) == "exclusiveMinimum" ? "minimum" : "maximum";
    const bool exclusive = out.at(key).get<bool>();
    out.erase(key);
    if (exclusive && out.contains(plain)) {
      out[key] = out.at(plain);
      out.erase(plain);
    }
  }
  return out;
}

}  // namespace ogai::grammar::schema
