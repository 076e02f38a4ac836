// SchemaCompiler: oneOf branches must be provably disjoint (types, or pinned required properties).
#include <fmt/format.h>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

const Json& SchemaCompiler::follow_refs(const Json* s, int hops) const {
  while (s->is_object() && s->contains("$ref") && s->at("$ref").is_string() && hops++ < 32) {
    const std::string r = s->at("$ref").get<std::string>();
    if (r.empty() || r[0] != '#') break;
    s = &resolve(r.substr(1), "");
  }
  return *s;
}

unsigned SchemaCompiler::possible_types(const Json& raw, int depth) const {
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

std::map<std::string, std::set<std::string>> SchemaCompiler::pinned(const Json& raw) const {
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

bool SchemaCompiler::disjoint(const Json& a, const Json& b) const {
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

void SchemaCompiler::check_disjoint(const std::vector<Json>& list, const std::string& ptr) const {
  for (std::size_t i = 0; i < list.size(); ++i)
    for (std::size_t k = i + 1; k < list.size(); ++k)
      if (!disjoint(list[i], list[k]))
        unsupported(ptr, fmt::format("'oneOf' whose branches {} and {} may both match (ogai enforces oneOf only for "
                                     "branches of different types or with a required property pinned to different "
                                     "const/enum values; use anyOf if overlap is fine)",
                                     i, k));
}
}  // namespace ogai::grammar::schema
