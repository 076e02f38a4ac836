#include "grammar/json_schema.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "base/error.h"
#include "grammar/compile_budget.h"
#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

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

bool json_equal(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    return a == b;
  }
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      auto other = b.find(it.key());
      if (other == b.end() || !json_equal(*it, *other)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!json_equal(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

SchemaCompiler::SchemaCompiler(const Json& root, std::string where, const JsonSchemaOptions& options)
    : root_(root),
      where_(std::move(where)),
      options_(options),
      b_(where_),
      j_(b_, options.whitespace, options.dialect) {}

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

Sequence SchemaCompiler::schema(const Json& s, const std::string& ptr, int depth) {
  auto out = maybe(s, ptr, depth);
  if (!out) invalid(ptr, "the schema allows no value");
  return *out;
}

std::optional<Sequence> SchemaCompiler::maybe(const Json& s, const std::string& ptr, int depth) {
  if (depth > kMaxSchemaDepth) invalid(ptr, fmt::format("the schema nests deeper than {} levels", kMaxSchemaDepth));
  if (s.is_boolean()) {
    if (!s.get<bool>()) return std::nullopt;
    return Sequence{j_.value()};
  }
  if (!s.is_object()) invalid(ptr, "expected a schema (an object or a boolean), got " + compact(s));
  std::size_t validating = 0;
  for (auto it = s.begin(); it != s.end(); ++it)
    validating += is_enforced_keyword(it.key()) && it.key() != options_.ignore_keyword_for_testing;
  if (validating == 1 && s.contains("$ref") && options_.ignore_keyword_for_testing != "$ref") {
    normalize(s, ptr);  // refuses what must be refused, reports formats
    return Sequence{GrammarBuilder::ref(ref_rule(s.at("$ref"), ptr + "/$ref", depth))};
  }
  return flat_schema(flatten(s, ptr, depth), ptr, depth);
}

std::optional<Sequence> SchemaCompiler::flat_schema(const Json& flat, const std::string& ptr, int depth) {
  if (flat.is_boolean()) {
    if (!flat.get<bool>()) return std::nullopt;
    return Sequence{j_.value()};
  }
  if (flat.contains("oneOf")) return alternatives(flat, "oneOf", ptr, depth);
  if (flat.contains("anyOf")) return alternatives(flat, "anyOf", ptr, depth);
  if (flat.contains("enum")) return literals(flat, ptr, depth);
  Json s = flat;
  if (s.contains(kNotEnum)) {
    unsigned allowed = 0;
    for (const auto& t : type_list(s, ptr)) allowed |= type_bit(t);
    unsigned removed = 0;
    bool has_true = false, has_false = false;
    for (const auto& v : s.at(kNotEnum)) {
      const unsigned bits = value_bits(v);
      if (!(bits & allowed)) continue;  // a value of a type the schema does not allow anyway
      if (v.is_null())
        removed |= kNull;
      else if (v.is_boolean())
        (v.get<bool>() ? has_true : has_false) = true;
      else
        unsupported(ptr + "/not", "'not' excluding the value " + compact(v) +
                                      " from a schema that allows it (ogai negates const/enum only beside an enum, "
                                      "or by removing a whole type)");
    }
    if (has_true && has_false)
      removed |= kBool;
    else if (has_true || has_false)
      unsupported(ptr + "/not", "'not' excluding one boolean value (use an enum)");
    Json types = Json::array();
    for (const char* t : {"null", "boolean", "string", "array", "object"})
      if ((allowed & type_bit(t) & ~removed) != 0) types.push_back(t);
    if (allowed & kFraction)
      types.push_back("number");
    else if (allowed & kInteger)
      types.push_back("integer");
    s.erase(kNotEnum);
    if (types.empty()) return std::nullopt;
    s["type"] = types;
  }
  std::vector<std::string> types = type_list(s, ptr);
  std::vector<Sequence> alts;
  for (const auto& t : types)
    if (auto seq = typed(s, t, ptr, depth)) alts.push_back(std::move(*seq));
  if (alts.empty()) return std::nullopt;
  if (alts.size() == 1) return alts[0];
  return Sequence{GrammarBuilder::ref(b_.rule("#" + ptr, std::move(alts)))};
}

std::vector<std::string> SchemaCompiler::type_list(const Json& s, const std::string& ptr) const {
  std::vector<std::string> types;
  auto it = s.find("type");
  if (it == s.end()) {
    bool constrained = false;
    for (auto k = s.begin(); k != s.end(); ++k) constrained = constrained || k.key() != "type";
    if (!constrained) return {"any"};
    return {"null", "boolean", "number", "string", "array", "object"};
  }
  if (it->is_string())
    types.push_back(it->get<std::string>());
  else if (it->is_array() && !it->empty())
    for (const auto& t : *it) {
      if (!t.is_string()) invalid(ptr + "/type", "expected type names, got " + compact(t));
      types.push_back(t.get<std::string>());
    }
  else
    invalid(ptr + "/type", "expected a type name or a non-empty list of them, got " + compact(*it));
  for (const auto& t : types)
    if (!type_bit(t)) invalid(ptr + "/type", "unknown type '" + t + "'");
  if (std::find(types.begin(), types.end(), "number") != types.end())  // number covers integer
    types.erase(std::remove(types.begin(), types.end(), "integer"), types.end());
  std::sort(types.begin(), types.end());
  types.erase(std::unique(types.begin(), types.end()), types.end());
  return types;
}

std::optional<Sequence> SchemaCompiler::typed(const Json& s, const std::string& t, const std::string& ptr, int depth) {
  if (t == "any") return Sequence{j_.value()};
  if (t == "null") return Sequence{j_.null()};
  if (t == "boolean") return Sequence{j_.boolean()};
  if (t == "string") return string_schema(s, ptr);
  if (t == "integer") return integer_schema(s, ptr);
  if (t == "number") return number_schema(s, ptr);
  if (t == "object") {
    if (s.contains("dependentRequired") || s.contains("dependentSchemas")) {
      Json obj = s;
      obj["type"] = "object";
      return flat_schema(apply_dependencies(obj, ptr, depth), ptr, depth);
    }
    return object_schema(s, ptr, depth);
  }
  return array_schema(s, ptr, depth);
}

bool SchemaCompiler::accepts(const Json& s, const Json& value, const std::string& ptr) {
  JsonSchemaOptions options;
  options.ignore_keyword_for_testing = options_.ignore_keyword_for_testing;
  SchemaCompiler sub(root_, where_, options);
  Sequence top = sub.schema(s, ptr, 0);
  auto g = CompiledGrammar::compile(sub.b_.finish(sub.b_.rule("root", {top})));
  Matcher m(g);
  const Matcher::State st = m.walk(m.initial(), compact(value));
  return st != Matcher::kDead && m.accepting(st);
}

std::optional<std::string> SchemaCompiler::literal_text(const Json& v) const {
  const JsonDialect& d = j_.dialect();
  if (d.is_json()) return compact(v);
  if (v.is_string()) return j_.string_literal(v.get<std::string>());
  if (v.is_array()) {
    std::string out = "[";
    for (const Json& item : v) {
      auto text = literal_text(item);
      if (!text) return std::nullopt;
      out += (out.size() > 1 ? "," : "") + *text;
    }
    return out + "]";
  }
  if (!v.is_object()) return compact(v);
  std::vector<std::string> keys;
  for (auto it = v.begin(); it != v.end(); ++it) keys.push_back(it.key());
  if (d.sorted_keys) std::stable_sort(keys.begin(), keys.end(), dictsort_less);
  std::string out = "{";
  for (const std::string& k : keys) {
    auto key = j_.key_literal(k);
    auto value = literal_text(v.at(k));
    if (!key || !value) return std::nullopt;
    out += (out.size() > 1 ? "," : "") + *key + ":" + *value;
  }
  return out + "}";
}

std::optional<Sequence> SchemaCompiler::literals(const Json& s, const std::string& ptr, int depth) {
  (void)depth;
  const Json& values = s.at("enum");
  if (!values.is_array()) invalid(ptr + "/enum", "expected a non-empty array");
  Json rest = s;
  rest.erase("enum");
  rest.erase(kNotEnum);
  unsigned allowed = kAll;
  if (rest.contains("type")) {
    allowed = 0;
    for (const auto& t : type_list(rest, ptr)) allowed |= type_bit(t);
    if (allowed & kFraction) allowed |= kInteger;
  }
  rest.erase("type");
  const bool check = !rest.empty();
  std::vector<std::string> texts;
  std::size_t bytes = 0;
  for (const Json& v : values) {
    if (!(value_bits(v) & allowed)) continue;  // a value of another type never validates
    bool excluded = false;
    if (s.contains(kNotEnum))
      for (const auto& n : s.at(kNotEnum)) excluded = excluded || json_equal(n, v);
    if (excluded) continue;
    if (check) {
      Json full = rest;
      if (s.contains("type")) full["type"] = s.at("type");
      if (!accepts(full, v, ptr)) continue;  // keeps only values the other keywords accept
    }
    std::optional<std::string> text = literal_text(v);
    if (!text) continue;  // a value the dialect cannot write (a string holding its delimiter)
    texts.push_back(std::move(*text));
    bytes += texts.back().size();
    if (bytes > kMaxLiteralBytes)
      invalid(ptr + "/enum",
              fmt::format("the values take more than {} bytes (the compile-time bound)", kMaxLiteralBytes));
  }
  if (texts.empty()) return std::nullopt;
  return j_.literal_set(std::move(texts), "#" + ptr + "/enum");
}

namespace {

std::string percent_decode(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The pointer of the subschema whose $anchor is `name` (or whose $id / id is "#name").
bool find_anchor(const Json& at, const std::string& name, const std::string& ptr, std::string& out) {
  if (at.is_object()) {
    auto is = [&](const char* key, const std::string& want) {
      auto it = at.find(key);
      return it != at.end() && it->is_string() && it->get<std::string>() == want;
    };
    if (is("$anchor", name) || is("$id", "#" + name) || is("id", "#" + name)) {
      out = ptr;
      return true;
    }
    for (auto it = at.begin(); it != at.end(); ++it)
      if (find_anchor(*it, name, ptr + "/" + escape_pointer(it.key()), out)) return true;
  } else if (at.is_array()) {
    for (std::size_t i = 0; i < at.size(); ++i)
      if (find_anchor(at[i], name, ptr + "/" + std::to_string(i), out)) return true;
  }
  return false;
}

}  // namespace

std::string SchemaCompiler::ref_pointer(const Json& ref, const std::string& ptr) const {
  if (!ref.is_string()) invalid(ptr, "expected a string");
  std::string r = ref.get<std::string>();
  for (const char* id : {"$id", "id"}) {  // a reference through the root's own id is local
    auto it = root_.find(id);
    if (it == root_.end() || !it->is_string()) continue;
    std::string base = it->get<std::string>();
    if (!base.empty() && base.back() == '#') base.pop_back();
    if (!base.empty() && r.rfind(base, 0) == 0 && (r.size() == base.size() || r[base.size()] == '#'))
      r = r.size() == base.size() ? "#" : r.substr(base.size());
  }
  if (r.empty() || r[0] != '#')
    unsupported(ptr, "remote '$ref' '" + r + "' outside this schema (ogai follows references inside the schema only)");
  // A relative reference below a subschema with its own base URI would resolve against that base.
  const Json* at = &root_;
  std::size_t pos = 0;
  while (pos < ptr.size() && at->is_object()) {
    std::size_t next = ptr.find('/', pos + 1);
    if (next == std::string::npos) next = ptr.size();
    std::string token = ptr.substr(pos + 1, next - pos - 1);
    auto it = at->find(token);
    if (it == at->end()) break;
    at = &*it;
    pos = next;
    if (at->is_object() && at != &root_ && pos < ptr.size() && at->contains("$id") && at->at("$id").is_string() &&
        at->at("$id").get<std::string>().rfind('#', 0) != 0)
      unsupported(ptr, "'$ref' below a subschema with its own '$id' (its base URI)");
  }
  std::string fragment = percent_decode(r.substr(1));
  if (!fragment.empty() && fragment[0] != '/') {
    std::string found;
    if (!find_anchor(root_, fragment, "", found)) invalid(ptr, "'$ref' '" + r + "' names no anchor in the schema");
    return found;
  }
  return fragment;
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
  const std::string pointer = ref_pointer(ref, ptr);
  if (auto it = refs_.find(pointer); it != refs_.end()) return it->second;
  const std::uint32_t id = b_.add_rule("#" + pointer);
  refs_[pointer] = id;
  const Json& target = resolve(pointer, ptr);
  b_.add_alternative(id, schema(target, pointer, depth + 1));
  return id;
}

std::optional<Sequence> SchemaCompiler::alternatives(const Json& base, const char* key, const std::string& ptr,
                                                     int depth) {
  const Json& list = base.at(key);
  const std::string at = ptr + "/" + key;
  if (!list.is_array() || list.empty()) invalid(at, "expected a non-empty array of schemas");
  Json rest = base;
  rest.erase(key);
  std::vector<Json> branches;
  std::vector<std::string> where;
  if (rest.empty()) {  // each branch as it is: a $ref branch stays a rule (recursion through it)
    if (std::string(key) == "oneOf") check_disjoint(std::vector<Json>(list.begin(), list.end()), at);
    std::vector<Sequence> alts;
    for (std::size_t i = 0; i < list.size(); ++i)
      if (auto seq = maybe(list[i], at + "/" + std::to_string(i), depth + 1)) alts.push_back(std::move(*seq));
    if (alts.empty()) return std::nullopt;
    if (alts.size() == 1) return alts[0];
    return Sequence{GrammarBuilder::ref(b_.rule("#" + at, std::move(alts)))};
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string p = at + "/" + std::to_string(i);
    Json m = merge(rest, flatten(list[i], p, depth + 1), p);
    if (m.is_boolean() && !m.get<bool>()) continue;  // provably matches nothing
    branches.push_back(std::move(m));
    where.push_back(p);
  }
  if (std::string(key) == "oneOf") check_disjoint(branches, at);
  std::vector<Sequence> alts;
  for (std::size_t i = 0; i < branches.size(); ++i)
    if (auto seq = flat_schema(branches[i], where[i], depth + 1)) alts.push_back(std::move(*seq));
  if (alts.empty()) return std::nullopt;
  if (alts.size() == 1) return alts[0];
  return Sequence{GrammarBuilder::ref(b_.rule("#" + at, std::move(alts)))};
}

}  // namespace ogai::grammar::schema

namespace ogai::grammar {

using schema::Json;
using schema::SchemaCompiler;

Grammar compile_json_schema(std::string_view text, const std::string& where, const JsonSchemaOptions& options) {
  Json root;
  try {
    // Polled per value: an object of many keys costs quadratic time to read (each key is checked
    // against those before it), which a client that left or the time budget must be able to stop.
    root = Json::parse(text, [&where](int, nlohmann::json::parse_event_t, Json&) {
      check_compile_budget(where);
      return true;
    });
  } catch (const nlohmann::json::exception& e) {
    fail(ErrorCode::kInvalidArgument, where, "the schema is not valid JSON: {}", e.what());
  }
  try {
    return SchemaCompiler(root, where, options).compile();
  } catch (const nlohmann::json::exception& e) {  // a value of an unexpected type deep inside
    fail(ErrorCode::kInvalidArgument, where, "the schema could not be read: {}", e.what());
  }
}

Grammar compile_json_object(const std::string& where, int whitespace) {
  GrammarBuilder b(where);
  JsonRules j(b, whitespace);
  const std::uint32_t root = b.rule("root", {{j.ws(), j.object()}});
  return b.finish(root);
}

}  // namespace ogai::grammar
