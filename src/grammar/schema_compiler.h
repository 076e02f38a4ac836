// SchemaCompiler: JSON Schema to grammar rules, the implementation behind compile_json_schema()
// (json_schema.h), split by concern: json_schema.cc (dispatch, $ref, literals, anyOf),
// json_schema_one_of.cc (oneOf disjointness), json_schema_scalars.cc (strings, numbers),
// json_schema_containers.cc (objects, arrays). Internal to the grammar stage; one per compile,
// not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/json_rules.h"

namespace ogai::grammar::schema {

using Json = nlohmann::ordered_json;

// JSON types as bits, for oneOf's disjointness check. Integer is part of number.
enum TypeBits : unsigned {
  kNull = 1, kBool = 2, kInteger = 4, kFraction = 8, kString = 16, kArray = 32, kObject = 64, kAll = 127
};
unsigned type_bit(const std::string& t);  // 0 for an unknown name
unsigned value_bits(const Json& v);
std::string escape_pointer(const std::string& key);  // a key as a JSON pointer token
std::string compact(const Json& v);                  // the value's compact JSON text

class SchemaCompiler {
 public:
  SchemaCompiler(const Json& root, std::string where) : root_(root), where_(std::move(where)), b_(where_), j_(b_) {}
  Grammar compile();

 private:
  [[noreturn]] void unsupported(const std::string& ptr, const std::string& what) const;
  [[noreturn]] void invalid(const std::string& ptr, const std::string& what) const;
  // The validation keywords of `s` (annotations dropped); any other keyword is refused.
  std::set<std::string> keywords(const Json& s, const std::string& ptr) const;
  // Refuses any keyword of `present` outside `allowed` (beside `key`).
  void only(const std::set<std::string>& present, const std::set<std::string>& allowed, const std::string& key,
            const std::string& ptr) const;
  // The grammar of the (sub)schema `s` at JSON pointer `ptr`.
  Sequence schema(const Json& s, const std::string& ptr, int depth);
  std::vector<std::string> type_list(const Json& s, const std::set<std::string>& kw, const std::string& ptr) const;
  Sequence typed(const Json& s, const std::string& t, const std::string& ptr, int depth);
  Sequence literals(const Json& s, const std::set<std::string>& kw, const std::string& ptr);
  // The schema a local JSON pointer names.
  const Json& resolve(const std::string& pointer, const std::string& ptr) const;
  // The rule of a $ref target (one per pointer; recursion goes through it).
  std::uint32_t ref_rule(const Json& ref, const std::string& ptr, int depth);
  Sequence any_of(const Json& list, const std::string& ptr, bool one_of, int depth);
  // The schema behind a chain of $refs.
  const Json& follow_refs(const Json* s, int hops = 0) const;
  unsigned possible_types(const Json& raw, int depth = 0) const;
  // Required properties whose value is pinned by const/enum: name -> allowed literal texts.
  std::map<std::string, std::set<std::string>> pinned(const Json& raw) const;
  bool disjoint(const Json& a, const Json& b) const;
  // oneOf is enforced only when its branches cannot both match (types or pinned properties).
  void check_disjoint(const Json& list, const std::string& ptr) const;
  std::optional<std::int64_t> count(const Json& s, const char* key, const std::string& ptr) const;
  Sequence string_schema(const Json& s, const std::string& ptr);
  // A bound keyword as a double; draft-4 boolean exclusive bounds are refused.
  std::optional<double> bound(const Json& s, const char* key, const std::string& ptr) const;
  Sequence integer_schema(const Json& s, const std::string& ptr);
  Sequence number_schema(const Json& s, const std::string& ptr);
  Sequence object_schema(const Json& s, const std::string& ptr, int depth);
  Sequence map_schema(const Json& value_schema, const std::string& ptr, int depth);
  Sequence array_schema(const Json& s, const std::string& ptr, int depth);

  const Json& root_;
  std::string where_;
  GrammarBuilder b_;
  JsonRules j_;
  std::map<std::string, std::uint32_t> refs_;  // $ref pointer -> rule
};

}  // namespace ogai::grammar::schema
