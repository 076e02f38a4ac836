// SchemaCompiler: flat schemas. allOf, a $ref beside other keywords, not, if/then/else and the
// dependent* keywords are folded into one schema whose keywords all hold at once; subschemas
// that merge lazily become {"allOf": [a, b]} (flattened when compiled), so recursion through
// structure stays a $ref rule.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {
namespace {

Json both(const Json& a, const Json& b) {
  if (a == Json(true)) return b;
  if (b == Json(true) || json_equal(a, b)) return a;
  return Json{{"allOf", Json::array({a, b})}};
}

// Type names as bits (number = integer | fraction) and back.
unsigned type_bits(const Json& t) {
  unsigned bits = 0;
  if (t.is_string()) return type_bit(t.get<std::string>());
  for (const auto& n : t)
    if (n.is_string()) bits |= type_bit(n.get<std::string>());
  return bits;
}

Json type_names(unsigned bits) {
  Json out = Json::array();
  for (const char* t : {"null", "boolean", "string", "array", "object"})
    if (bits & type_bit(t)) out.push_back(t);
  if ((bits & kInteger) && (bits & kFraction)) out.push_back("number");
  else if (bits & kInteger) out.push_back("integer");
  return out;  // a fraction without integers is not a type ogai can state: dropped (a subset)
}

bool has_true_ap(const Json& s) {
  return !s.contains("additionalProperties") || s.at("additionalProperties") == Json(true);
}

const std::set<std::string> kLower = {"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties",
                                      "minContains"};
const std::set<std::string> kUpper = {"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties",
                                      "maxContains"};

}  // namespace

const Json& SchemaCompiler::keep(Json j) {
  kept_.push_back(std::move(j));
  return kept_.back();
}

Json SchemaCompiler::flatten(const Json& s, const std::string& ptr, int depth) {
  if (depth > kMaxSchemaDepth) invalid(ptr, fmt::format("the schema nests deeper than {} levels", kMaxSchemaDepth));
  if (s.is_boolean()) return s;
  if (!s.is_object()) invalid(ptr, "expected a schema (an object or a boolean), got " + compact(s));
  Json n = normalize(s, ptr);
  Json base = n;
  for (const char* k : {"$ref", "allOf", "not", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems"})
    base.erase(k);
  if (base.contains("enum") && base.at("enum").empty()) return false;
  if (n.contains("$ref")) {
    const std::string pointer = ref_pointer(n.at("$ref"), ptr + "/$ref");
    if (inlined_ > 32) invalid(ptr + "/$ref", "'$ref' chain of more than 32 inlined schemas (a cycle without structure?)");
    ++inlined_;
    Json target = flatten(resolve(pointer, ptr + "/$ref"), pointer, depth + 1);
    --inlined_;
    base = merge(base, target, ptr);
  }
  if (n.contains("allOf")) {
    const Json& all = n.at("allOf");
    if (!all.is_array() || all.empty()) invalid(ptr + "/allOf", "expected a non-empty array of schemas");
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string p = ptr + "/allOf/" + std::to_string(i);
      base = merge(base, flatten(all[i], p, depth + 1), p);
    }
  }
  if (n.contains("if")) base = apply_conditional(std::move(base), n, ptr, depth);
  if (n.contains("not")) {
    auto neg = negate(flatten(n.at("not"), ptr + "/not", depth + 1), ptr + "/not", depth + 1);
    if (!neg)
      unsupported(ptr + "/not", "keyword 'not' (ogai negates a type, const/enum values or required properties)");
    base = merge(base, *neg, ptr);
  }
  // unevaluated*: what this schema and the subschemas merged into it leave unevaluated. Stated as
  // additionalProperties / items of the merged schema: the names (items) they cover include all the
  // unevaluated ones, so this is as strict or stricter (anyOf/oneOf branch properties merged later
  // are covered too: a subset).
  if (base.is_object() && n.contains("unevaluatedProperties") && !base.contains("additionalProperties"))
    base["additionalProperties"] = n.at("unevaluatedProperties");
  if (base.is_object() && n.contains("unevaluatedItems") && !base.contains("items"))
    base["items"] = n.at("unevaluatedItems");
  return base;
}

void SchemaCompiler::cover_additional(const Json& x, Json& y, const std::string& ptr) {
  if (has_true_ap(x)) return;
  const Json& ap = x.at("additionalProperties");
  if (y.contains("properties") && y.at("properties").is_object())
    for (auto it = y.at("properties").begin(); it != y.at("properties").end(); ++it) {
      bool covered = x.contains("properties") && x.at("properties").is_object() && x.at("properties").contains(it.key());
      if (x.contains("patternProperties") && x.at("patternProperties").is_object())
        for (auto p = x.at("patternProperties").begin(); p != x.at("patternProperties").end() && !covered; ++p)
          covered = regex_matches(p.key(), it.key(), ptr);
      if (!covered) *it = both(*it, ap);
    }
  if (y.contains("patternProperties") && y.at("patternProperties").is_object())
    for (auto& v : y.at("patternProperties")) v = both(v, ap);
}

void SchemaCompiler::merge_prefix_items(Json& a, Json& b, const std::string& ptr) const {
  if (!a.contains("prefixItems") && !b.contains("prefixItems")) return;
  const Json none = Json::array();
  const Json& pa = a.contains("prefixItems") ? a.at("prefixItems") : none;
  const Json& pb = b.contains("prefixItems") ? b.at("prefixItems") : none;
  if (!pa.is_array() || !pb.is_array()) invalid(ptr + "/prefixItems", "expected an array of schemas");
  Json merged = Json::array();
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i)
    merged.push_back(both(i < pa.size() ? pa[i] : a.value("items", Json(true)),
                          i < pb.size() ? pb[i] : b.value("items", Json(true))));
  a["prefixItems"] = merged;
  b.erase("prefixItems");
}

bool SchemaCompiler::merge_keyword(const std::string& k, Json& o, const Json& v, const std::string& ptr) {
  if (k == "type") {
    Json names = type_names(type_bits(o) & type_bits(v));
    if (names.empty()) return false;
    o = names;
  } else if (k == "enum") {
    Json kept = Json::array();
    for (const auto& x : o)
      for (const auto& y : v)
        if (json_equal(x, y)) {
          kept.push_back(x);
          break;
        }
    if (kept.empty()) return false;
    o = kept;
  } else if (k == kNotEnum) {
    for (const auto& x : v) o.push_back(x);
  } else if (k == "properties" || k == "patternProperties" || k == "dependentSchemas") {
    if (!o.is_object() || !v.is_object()) invalid(ptr + "/" + k, "expected an object");
    for (auto p = v.begin(); p != v.end(); ++p) o[p.key()] = o.contains(p.key()) ? both(o[p.key()], *p) : *p;
  } else if (k == "required") {
    for (const auto& name : v)
      if (std::find(o.begin(), o.end(), name) == o.end()) o.push_back(name);
  } else if (k == "dependentRequired") {
    for (auto p = v.begin(); p != v.end(); ++p) {
      Json& list = o[p.key()];
      if (list.is_null()) list = Json::array();
      for (const auto& name : *p)
        if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
    }
  } else if (k == "additionalProperties" || k == "propertyNames" || k == "items") {
    o = both(o, v);
  } else if (kLower.count(k) || kUpper.count(k)) {
    if (!o.is_number() || !v.is_number()) invalid(ptr + "/" + k, "expected a number");
    const bool take = kLower.count(k) ? v.get<double>() > o.get<double>() : v.get<double>() < o.get<double>();
    if (take) o = v;
  } else if (k == "uniqueItems") {
    o = o == Json(true) || v == Json(true);
  } else if (k == "multipleOf") {
    o = merged_multiple_of(o, v, ptr);
  } else if (k == "anyOf") {
    if (!o.is_array() || !v.is_array()) invalid(ptr + "/anyOf", "expected a non-empty array of schemas");
    if (o.size() * v.size() > 64) unsupported(ptr + "/anyOf", "merged 'anyOf's with more than 64 combinations");
    Json product = Json::array();
    for (const auto& x : o)
      for (const auto& y : v) product.push_back(both(x, y));
    o = product;
  } else if (!json_equal(o, v)) {  // equal: the same pattern, format, contains, oneOf
    unsupported(ptr + "/" + k, fmt::format("two different '{}' values at once (from allOf, $ref or if/then)", k));
  }
  return true;
}

Json SchemaCompiler::merged_multiple_of(const Json& o, const Json& v, const std::string& ptr) const {
  if (json_equal(o, v)) return o;
  if (o.is_number_integer() && v.is_number_integer() && o.get<std::int64_t>() > 0 && v.get<std::int64_t>() > 0) {
    const std::int64_t l = std::lcm(o.get<std::int64_t>(), v.get<std::int64_t>());
    if (l > (std::int64_t{1} << 53)) unsupported(ptr + "/multipleOf", "merged 'multipleOf' values beyond 2^53");
    return l;
  }
  unsupported(ptr + "/multipleOf", fmt::format("two different 'multipleOf' values ({} and {})", compact(o), compact(v)));
}

Json SchemaCompiler::merge(const Json& a_in, const Json& b_in, const std::string& ptr) {
  if (a_in.is_boolean()) return a_in.get<bool>() ? b_in : Json(false);
  if (b_in.is_boolean()) return b_in.get<bool>() ? a_in : Json(false);
  Json a = a_in, b = b_in;
  // Each side's additionalProperties covers the names the other declares that it does not.
  cover_additional(a_in, b, ptr);
  cover_additional(b_in, a, ptr);
  merge_prefix_items(a, b, ptr);  // tuples: each side's items cover the other's longer prefix
  Json out = a;
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!out.contains(it.key())) {
      out[it.key()] = *it;
      continue;
    }
    if (!merge_keyword(it.key(), out[it.key()], *it, ptr)) return false;
  }
  return out;
}

std::optional<Json> SchemaCompiler::negate(const Json& n, const std::string& ptr, int depth) {
  if (n.is_boolean()) return Json(!n.get<bool>());
  if (n.empty()) return Json(false);
  if (n.contains("type")) {  // whatever else n says, a value of another type fails it
    unsigned bits = type_bits(n.at("type"));
    if (bits & kInteger) bits |= kFraction;  // not integer: only non-integers pass; ogai drops numbers
    Json names = type_names(kAll & ~bits);
    if (names.empty()) return Json(false);
    return Json{{"type", names}};
  }
  if (n.size() == 1 && n.contains("enum")) return Json{{kNotEnum, n.at("enum")}};
  if (n.size() == 1 && n.contains("required") && n.at("required").is_array() && !n.at("required").empty() &&
      n.at("required")[0].is_string())
    return Json{{"properties", {{n.at("required")[0].get<std::string>(), false}}}};
  if (n.size() == 1 && n.contains("anyOf") && n.at("anyOf").is_array()) {  // not anyOf = every branch fails
    Json out = true;
    for (std::size_t i = 0; i < n.at("anyOf").size(); ++i) {
      const std::string p = ptr + "/anyOf/" + std::to_string(i);
      auto neg = negate(flatten(n.at("anyOf")[i], p, depth + 1), p, depth + 1);
      if (!neg) return std::nullopt;
      out = merge(out, *neg, p);
    }
    return out;
  }
  return std::nullopt;
}

Json SchemaCompiler::apply_conditional(Json base, const Json& s, const std::string& ptr, int depth) {
  if (!s.contains("then") && !s.contains("else")) return base;
  const Json cond = flatten(s.at("if"), ptr + "/if", depth + 1);
  const Json then_s = s.contains("then") ? flatten(s.at("then"), ptr + "/then", depth + 1) : Json(true);
  const Json else_s = s.contains("else") ? flatten(s.at("else"), ptr + "/else", depth + 1) : Json(true);
  if (cond == Json(true)) return merge(base, then_s, ptr);
  if (cond == Json(false)) return merge(base, else_s, ptr);
  // Values matching `if` then `then`, or values provably failing `if` then `else`; when no
  // failing set can be stated, only the first branch is generated (a subset).
  Json branches = Json::array();
  Json first = merge(cond, then_s, ptr + "/then");
  if (first != Json(false)) branches.push_back(first);
  if (auto neg = negate(cond, ptr + "/if", depth + 1)) {
    Json second = merge(*neg, else_s, ptr + "/else");
    if (second != Json(false)) branches.push_back(second);
  }
  if (branches.empty()) return false;
  return merge(base, branches.size() == 1 ? branches[0] : Json{{"anyOf", branches}}, ptr);
}

Json SchemaCompiler::apply_dependencies(Json base, const std::string& ptr, int depth) {
  // A dependency applies when its property may be generated: a declared or required name, or any
  // name when the object is a map. Applying one that could not matter only narrows (sound).
  auto may_appear = [&](const Json& s, const std::string& name) {
    const bool declared = s.contains("properties") && s.at("properties").contains(name) &&
                          s.at("properties").at(name) != Json(false);
    const bool required = s.contains("required") && std::find(s.at("required").begin(), s.at("required").end(),
                                                              Json(name)) != s.at("required").end();
    const bool map = (!s.contains("properties") || s.at("properties").empty()) &&
                     (!s.contains("required") || s.at("required").empty()) &&
                     (!s.contains("additionalProperties") || s.at("additionalProperties") != Json(false) ||
                      (s.contains("patternProperties") && !s.at("patternProperties").empty()));
    return declared || required || map;
  };
  std::set<std::string> done;
  for (bool changed = true; changed && base.is_object();) {
    changed = false;
    if (base.contains("dependentRequired")) {
      const Json deps = base.at("dependentRequired");
      if (!deps.is_object()) invalid(ptr + "/dependentRequired", "expected an object");
      for (auto it = deps.begin(); it != deps.end(); ++it) {
        if (!it->is_array()) invalid(ptr + "/dependentRequired/" + escape_pointer(it.key()), "expected an array of names");
        if (!may_appear(base, it.key())) continue;
        Json& req = base["required"];
        if (req.is_null()) req = Json::array();
        for (const auto& name : *it)
          if (std::find(req.begin(), req.end(), name) == req.end()) {
            req.push_back(name);
            changed = true;
          }
      }
    }
    if (base.contains("dependentSchemas")) {
      const Json deps = base.at("dependentSchemas");
      if (!deps.is_object()) invalid(ptr + "/dependentSchemas", "expected an object");
      for (auto it = deps.begin(); it != deps.end(); ++it) {
        if (done.count(it.key()) || !may_appear(base, it.key())) continue;
        done.insert(it.key());
        const std::string p = ptr + "/dependentSchemas/" + escape_pointer(it.key());
        base = merge(base, flatten(*it, p, depth + 1), p);
        changed = true;
        break;  // base changed: start over
      }
    }
  }
  if (base.is_object()) {
    base.erase("dependentRequired");
    base.erase("dependentSchemas");
  }
  return base;
}

}  // namespace ogai::grammar::schema
