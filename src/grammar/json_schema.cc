#include "grammar/json_schema.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "base/error.h"
#include "grammar/json_rules.h"
#include "grammar/regex.h"

namespace ogai::grammar {
namespace {

using Json = nlohmann::ordered_json;

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

// JSON types as bits, for oneOf's disjointness check. Integer is part of number.
enum TypeBits : unsigned {
  kNull = 1, kBool = 2, kInteger = 4, kFraction = 8, kString = 16, kArray = 32, kObject = 64, kAll = 127
};

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

class SchemaCompiler {
 public:
  SchemaCompiler(const Json& root, std::string where) : root_(root), where_(std::move(where)), b_(where_), j_(b_) {}

  Grammar compile() {
    Sequence top = {j_.ws()};
    GrammarBuilder::append(top, schema(root_, "", 0));
    return b_.finish(b_.rule("root", {top}));
  }

 private:
  [[noreturn]] void unsupported(const std::string& ptr, const std::string& what) const {
    fail(ErrorCode::kUnsupported, where_, "{} at '#{}' (the schema cannot be enforced, so it is refused)", what, ptr);
  }
  [[noreturn]] void invalid(const std::string& ptr, const std::string& what) const {
    fail(ErrorCode::kInvalidArgument, where_, "{} at '#{}'", what, ptr);
  }

  // The validation keywords of `s` (annotations dropped); any other keyword is refused.
  std::set<std::string> keywords(const Json& s, const std::string& ptr) const {
    std::set<std::string> out;
    for (auto it = s.begin(); it != s.end(); ++it) {
      const std::string& k = it.key();
      if (annotation_keywords().count(k) || k.rfind("x-", 0) == 0) continue;
      if (!validation_keywords().count(k)) unsupported(ptr + "/" + escape_pointer(k), fmt::format("keyword '{}'", k));
      out.insert(k);
    }
    return out;
  }

  void only(const std::set<std::string>& present, const std::set<std::string>& allowed, const std::string& key,
            const std::string& ptr) const {
    for (const auto& k : present)
      if (!allowed.count(k)) unsupported(ptr, fmt::format("keyword '{}' beside '{}'", k, key));
  }

  Sequence schema(const Json& s, const std::string& ptr, int depth) {
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

  std::vector<std::string> type_list(const Json& s, const std::set<std::string>& kw, const std::string& ptr) const {
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

  Sequence typed(const Json& s, const std::string& t, const std::string& ptr, int depth) {
    if (t == "null") return {j_.null()};
    if (t == "boolean") return {j_.boolean()};
    if (t == "string") return string_schema(s, ptr);
    if (t == "integer") return integer_schema(s, ptr);
    if (t == "number") return number_schema(s, ptr);
    if (t == "object") return object_schema(s, ptr, depth);
    return array_schema(s, ptr, depth);
  }

  Sequence literals(const Json& s, const std::set<std::string>& kw, const std::string& ptr) {
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

  // ---- $ref ----------------------------------------------------------------------------------

  const Json& resolve(const std::string& pointer, const std::string& ptr) const {
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

  std::uint32_t ref_rule(const Json& ref, const std::string& ptr, int depth) {
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

  // ---- anyOf / oneOf -------------------------------------------------------------------------

  Sequence any_of(const Json& list, const std::string& ptr, bool one_of, int depth) {
    if (!list.is_array() || list.empty()) invalid(ptr, "expected a non-empty array of schemas");
    if (one_of) check_disjoint(list, ptr);
    std::vector<Sequence> alts;
    for (std::size_t i = 0; i < list.size(); ++i) alts.push_back(schema(list[i], ptr + "/" + std::to_string(i), depth + 1));
    if (alts.size() == 1) return alts[0];
    return {GrammarBuilder::ref(b_.rule("#" + ptr, std::move(alts)))};
  }

  const Json& follow_refs(const Json* s, int hops = 0) const {
    while (s->is_object() && s->contains("$ref") && s->at("$ref").is_string() && hops++ < 32) {
      const std::string r = s->at("$ref").get<std::string>();
      if (r.empty() || r[0] != '#') break;
      s = &resolve(r.substr(1), "");
    }
    return *s;
  }

  unsigned possible_types(const Json& raw, int depth = 0) const {
    const Json& s = follow_refs(&raw);
    if (!s.is_object() || depth > 16) return kAll;
    unsigned bits = 0;
    for (const char* key : {"anyOf", "oneOf", "allOf"})
      if (s.contains(key) && s.at(key).is_array()) {
        for (const auto& sub : s.at(key)) bits |= possible_types(sub, depth + 1);
        return bits;
      }
    if (s.contains("const")) return value_bits(s.at("const"));
    if (s.contains("enum") && s.at("enum").is_array()) {
      for (const auto& v : s.at("enum")) bits |= value_bits(v);
      return bits;
    }
    if (s.contains("type")) {
      const Json& t = s.at("type");
      if (t.is_string()) return type_bit(t.get<std::string>());
      if (t.is_array())
        for (const auto& n : t)
          if (n.is_string()) bits |= type_bit(n.get<std::string>());
      return bits ? bits : kAll;
    }
    return kAll;
  }

  // Required properties whose value is pinned by const/enum: name -> allowed literal texts.
  std::map<std::string, std::set<std::string>> pinned(const Json& raw) const {
    std::map<std::string, std::set<std::string>> out;
    const Json& s = follow_refs(&raw);
    if (!s.is_object() || !s.contains("properties") || !s.contains("required") || !s.at("required").is_array()) return out;
    for (const auto& name : s.at("required")) {
      if (!name.is_string() || !s.at("properties").contains(name.get<std::string>())) continue;
      const Json& p = follow_refs(&s.at("properties").at(name.get<std::string>()));
      if (!p.is_object()) continue;
      std::set<std::string> values;
      if (p.contains("const")) values.insert(compact(p.at("const")));
      else if (p.contains("enum") && p.at("enum").is_array())
        for (const auto& v : p.at("enum")) values.insert(compact(v));
      if (!values.empty()) out[name.get<std::string>()] = values;
    }
    return out;
  }

  bool disjoint(const Json& a, const Json& b) const {
    if (!(possible_types(a) & possible_types(b))) return true;
    if (possible_types(a) != kObject || possible_types(b) != kObject) return false;
    const auto pa = pinned(a), pb = pinned(b);
    for (const auto& [name, va] : pa) {
      auto it = pb.find(name);
      if (it == pb.end()) continue;
      bool overlap = false;
      for (const auto& v : va) overlap = overlap || it->second.count(v);
      if (!overlap) return true;
    }
    return false;
  }

  void check_disjoint(const Json& list, const std::string& ptr) const {
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t k = i + 1; k < list.size(); ++k)
        if (!disjoint(list[i], list[k]))
          unsupported(ptr, fmt::format("'oneOf' whose branches {} and {} may both match (ogai enforces oneOf only for "
                                       "branches of different types or with a required property pinned to different "
                                       "const/enum values; use anyOf if overlap is fine)",
                                       i, k));
  }

  // ---- strings and numbers -------------------------------------------------------------------

  std::optional<std::int64_t> count(const Json& s, const char* key, const std::string& ptr) const {
    auto it = s.find(key);
    if (it == s.end()) return std::nullopt;
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
      invalid(ptr + "/" + key, "expected a non-negative integer, got " + compact(*it));
    return it->get<std::int64_t>();
  }

  Sequence string_schema(const Json& s, const std::string& ptr) {
    const auto min = count(s, "minLength", ptr), max = count(s, "maxLength", ptr);
    const bool has_pattern = s.contains("pattern"), has_format = s.contains("format");
    if ((min || max) + has_pattern + has_format > 1)
      unsupported(ptr, "combining 'pattern', 'format' and string lengths");
    if (has_pattern) {
      const Json& p = s.at("pattern");
      if (!p.is_string()) invalid(ptr + "/pattern", "expected a string");
      Sequence out = b_.literal("\"");
      GrammarBuilder::append(out, compile_regex(b_, p.get<std::string>(), Spelling::kJsonString, RegexAnchoring::kSearch,
                                                where_ + "#" + ptr + "/pattern"));
      GrammarBuilder::append(out, b_.literal("\""));
      return out;
    }
    if (has_format) {
      const Json& f = s.at("format");
      if (!f.is_string()) invalid(ptr + "/format", "expected a string");
      auto seq = j_.string_with_format(f.get<std::string>(), "#" + ptr + "/format");
      if (!seq)
        unsupported(ptr + "/format", "format '" + f.get<std::string>() + "' (supported: date, time, date-time, uuid, email)");
      return *seq;
    }
    if (!min && !max) return {j_.string()};
    if (min && max && *max < *min) invalid(ptr, "maxLength is below minLength");
    Sequence out = b_.literal("\"");
    GrammarBuilder::append(out, j_.string_with_length(min.value_or(0), max.value_or(-1)));
    return out;
  }

  // A bound keyword as a double; draft-4 boolean exclusive bounds are refused.
  std::optional<double> bound(const Json& s, const char* key, const std::string& ptr) const {
    auto it = s.find(key);
    if (it == s.end()) return std::nullopt;
    if (!it->is_number()) unsupported(ptr + "/" + key, fmt::format("'{}' that is not a number ({})", key, compact(*it)));
    const double v = it->get<double>();
    if (std::abs(v) > 9e15) unsupported(ptr + "/" + key, fmt::format("'{}' beyond +-9e15", key));
    return v;
  }

  Sequence integer_schema(const Json& s, const std::string& ptr) {
    std::optional<std::int64_t> lo, hi;
    auto raise = [&](std::int64_t v) { lo = lo ? std::max(*lo, v) : v; };
    auto lower = [&](std::int64_t v) { hi = hi ? std::min(*hi, v) : v; };
    if (auto v = bound(s, "minimum", ptr)) raise(static_cast<std::int64_t>(std::ceil(*v)));
    if (auto v = bound(s, "exclusiveMinimum", ptr)) raise(static_cast<std::int64_t>(std::floor(*v)) + 1);
    if (auto v = bound(s, "maximum", ptr)) lower(static_cast<std::int64_t>(std::floor(*v)));
    if (auto v = bound(s, "exclusiveMaximum", ptr)) lower(static_cast<std::int64_t>(std::ceil(*v)) - 1);
    if (!lo && !hi) return {j_.integer()};
    Sequence out = j_.integer_range(lo, hi, "#" + ptr + "-range");
    if (out.empty()) invalid(ptr, "no integer satisfies the bounds");
    return out;
  }

  Sequence number_schema(const Json& s, const std::string& ptr) {
    std::optional<NumberBound> lo, hi;
    auto integral = [&](const char* key) -> std::optional<std::int64_t> {
      auto v = bound(s, key, ptr);
      if (!v) return std::nullopt;
      if (std::floor(*v) != *v)
        unsupported(ptr + "/" + key, fmt::format("'{}' {} on a number (ogai enforces integer-valued bounds on numbers)", key, *v));
      return static_cast<std::int64_t>(*v);
    };
    auto tighter_lo = [&](NumberBound b) {
      if (!lo || b.value > lo->value || (b.value == lo->value && b.exclusive)) lo = b;
    };
    auto tighter_hi = [&](NumberBound b) {
      if (!hi || b.value < hi->value || (b.value == hi->value && b.exclusive)) hi = b;
    };
    if (auto v = integral("minimum")) tighter_lo({*v, false});
    if (auto v = integral("exclusiveMinimum")) tighter_lo({*v, true});
    if (auto v = integral("maximum")) tighter_hi({*v, false});
    if (auto v = integral("exclusiveMaximum")) tighter_hi({*v, true});
    if (!lo && !hi) return {j_.number()};
    if (lo && hi && (lo->value > hi->value || (lo->value == hi->value && (lo->exclusive || hi->exclusive))))
      invalid(ptr, "no number satisfies the bounds");
    return j_.number_range(lo, hi, "#" + ptr + "-range");
  }

  // ---- objects -------------------------------------------------------------------------------

  Sequence object_schema(const Json& s, const std::string& ptr, int depth) {
    const Json empty = Json::object();
    const Json& props = s.contains("properties") ? s.at("properties") : empty;
    if (!props.is_object()) invalid(ptr + "/properties", "expected an object");
    std::vector<std::string> required;
    if (s.contains("required")) {
      const Json& r = s.at("required");
      if (!r.is_array()) invalid(ptr + "/required", "expected an array of property names");
      for (const auto& n : r) {
        if (!n.is_string()) invalid(ptr + "/required", "expected property names, got " + compact(n));
        required.push_back(n.get<std::string>());
      }
    }
    const Json* extra = s.contains("additionalProperties") ? &s.at("additionalProperties") : nullptr;
    if (extra && !extra->is_boolean() && !extra->is_object())
      invalid(ptr + "/additionalProperties", "expected a boolean or a schema");
    if (extra && extra->is_object()) {
      if (!props.empty() || !required.empty())
        unsupported(ptr + "/additionalProperties", "'additionalProperties' as a schema beside 'properties' or 'required'");
      return map_schema(*extra, ptr + "/additionalProperties", depth);
    }
    const bool closed = extra && !extra->get<bool>();
    struct Prop {
      std::string name;
      const Json* schema;
      std::string ptr;
      bool required;
    };
    std::vector<Prop> list;
    const Json any = true;
    for (auto it = props.begin(); it != props.end(); ++it) {
      const bool req = std::find(required.begin(), required.end(), it.key()) != required.end();
      list.push_back({it.key(), &it.value(), ptr + "/properties/" + escape_pointer(it.key()), req});
    }
    for (const auto& name : required) {
      if (props.contains(name)) continue;
      if (closed) invalid(ptr + "/required", "required property '" + name + "' is not in 'properties' and additionalProperties is false");
      list.push_back({name, &any, ptr + "/required", true});
    }
    // first[i]: properties i.. with none written yet; rest[i]: after at least one.
    std::uint32_t first = b_.rule("#" + ptr + "-end", {{}}), rest = first;
    for (std::size_t i = list.size(); i-- > 0;) {
      const Prop& p = list[i];
      Sequence member = b_.literal(compact(Json(p.name)));
      member.push_back(j_.ws());
      GrammarBuilder::append(member, b_.literal(":"));
      member.push_back(j_.ws());
      GrammarBuilder::append(member, schema(*p.schema, p.ptr, depth + 1));
      member.push_back(j_.ws());
      const Element m = GrammarBuilder::ref(b_.rule("#" + p.ptr, {member}));
      Sequence with_comma = b_.literal(",");
      with_comma.push_back(j_.ws());
      with_comma.push_back(m);
      with_comma.push_back(GrammarBuilder::ref(rest));
      std::vector<Sequence> rest_alts{with_comma}, first_alts{{m, GrammarBuilder::ref(rest)}};
      if (!p.required) {
        rest_alts.push_back({GrammarBuilder::ref(rest)});
        first_alts.push_back({GrammarBuilder::ref(first)});
      }
      rest = b_.rule("#" + p.ptr + "-rest", std::move(rest_alts));
      first = b_.rule("#" + p.ptr + "-first", std::move(first_alts));
    }
    Sequence out = b_.literal("{");
    out.push_back(j_.ws());
    out.push_back(GrammarBuilder::ref(first));
    GrammarBuilder::append(out, b_.literal("}"));
    return out;
  }

  Sequence map_schema(const Json& value_schema, const std::string& ptr, int depth) {
    Sequence entry = {j_.string(), j_.ws()};
    GrammarBuilder::append(entry, b_.literal(":"));
    entry.push_back(j_.ws());
    GrammarBuilder::append(entry, schema(value_schema, ptr, depth + 1));
    entry.push_back(j_.ws());
    const Element e = GrammarBuilder::ref(b_.rule("#" + ptr + "-entry", {entry}));
    Sequence more = b_.literal(",");
    more.push_back(j_.ws());
    more.push_back(e);
    Sequence filled = {e};
    GrammarBuilder::append(filled, b_.repeat(more, 0, -1, "#" + ptr + "-entries"));
    Sequence out = b_.literal("{");
    out.push_back(j_.ws());
    GrammarBuilder::append(out, b_.optional(filled, "#" + ptr + "-body"));
    GrammarBuilder::append(out, b_.literal("}"));
    return out;
  }

  // ---- arrays --------------------------------------------------------------------------------

  Sequence array_schema(const Json& s, const std::string& ptr, int depth) {
    const Json* prefix = nullptr;
    const Json* rest = nullptr;
    std::string prefix_ptr, rest_ptr;
    if (s.contains("prefixItems")) {
      prefix = &s.at("prefixItems");
      prefix_ptr = ptr + "/prefixItems";
      if (s.contains("additionalItems")) unsupported(ptr + "/additionalItems", "'additionalItems' beside 'prefixItems'");
      if (s.contains("items")) rest = &s.at("items"), rest_ptr = ptr + "/items";
    } else if (s.contains("items") && s.at("items").is_array()) {
      prefix = &s.at("items");
      prefix_ptr = ptr + "/items";
      if (s.contains("additionalItems")) rest = &s.at("additionalItems"), rest_ptr = ptr + "/additionalItems";
    } else {
      if (s.contains("additionalItems")) unsupported(ptr + "/additionalItems", "'additionalItems' without tuple 'items'");
      if (s.contains("items")) rest = &s.at("items"), rest_ptr = ptr + "/items";
    }
    if (prefix && !prefix->is_array()) invalid(prefix_ptr, "expected an array of schemas");
    if (s.contains("uniqueItems") && (!s.at("uniqueItems").is_boolean() || s.at("uniqueItems").get<bool>()))
      unsupported(ptr + "/uniqueItems", "keyword 'uniqueItems'");
    const std::size_t k = prefix ? prefix->size() : 0;
    const bool rest_allowed = !(rest && rest->is_boolean() && !rest->get<bool>());
    const std::int64_t min = count(s, "minItems", ptr).value_or(0);
    std::optional<std::int64_t> max = count(s, "maxItems", ptr);
    if (!rest_allowed) max = std::min<std::int64_t>(max.value_or(static_cast<std::int64_t>(k)), static_cast<std::int64_t>(k));
    if (max && *max < min) invalid(ptr, "no array length satisfies minItems, maxItems and the item schemas");
    const Json any = true;
    auto element = [&](const Json& sub, const std::string& p) {
      Sequence e = schema(sub, p, depth + 1);
      e.push_back(j_.ws());
      return GrammarBuilder::ref(b_.rule("#" + p + "-element", {e}));
    };
    auto comma = [&]() {
      Sequence c = b_.literal(",");
      c.push_back(j_.ws());
      return c;
    };
    // The tail after the k tuple items.
    std::vector<Sequence> tail_alts;
    const std::int64_t tail_min = std::max<std::int64_t>(min - static_cast<std::int64_t>(k), 0);
    const std::int64_t tail_max = max ? *max - static_cast<std::int64_t>(k) : -1;
    if (!rest_allowed || tail_max == 0) {
      tail_alts.push_back({});
    } else {
      const Element r = element(rest ? *rest : any, rest ? rest_ptr : ptr + "/items");
      Sequence more = comma();
      more.push_back(r);
      if (k > 0) {
        tail_alts.push_back(b_.repeat(more, tail_min, tail_max, "#" + ptr + "-items"));
      } else {
        Sequence filled = {r};
        GrammarBuilder::append(filled, b_.repeat(more, std::max<std::int64_t>(tail_min - 1, 0),
                                                 tail_max < 0 ? -1 : tail_max - 1, "#" + ptr + "-items"));
        tail_alts.push_back(filled);
        if (tail_min == 0) tail_alts.push_back({});
      }
    }
    std::uint32_t next = b_.rule("#" + ptr + "-tail", std::move(tail_alts));
    for (std::size_t j = k; j-- > 0;) {
      std::vector<Sequence> alts;
      if (static_cast<std::int64_t>(j) >= min) alts.push_back({});
      if (!max || static_cast<std::int64_t>(j) < *max) {
        Sequence item = j == 0 ? Sequence{} : comma();
        item.push_back(element((*prefix)[j], prefix_ptr + "/" + std::to_string(j)));
        item.push_back(GrammarBuilder::ref(next));
        alts.push_back(std::move(item));
      }
      next = b_.rule("#" + ptr + "-from" + std::to_string(j), std::move(alts));
    }
    Sequence out = b_.literal("[");
    out.push_back(j_.ws());
    out.push_back(GrammarBuilder::ref(next));
    GrammarBuilder::append(out, b_.literal("]"));
    return out;
  }

  const Json& root_;
  std::string where_;
  GrammarBuilder b_;
  JsonRules j_;
  std::map<std::string, std::uint32_t> refs_;
};

}  // namespace

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
