// SchemaCompiler: JSON Schema to grammar rules, the implementation behind compile_json_schema()
// (json_schema.h), split by concern: json_schema.cc (dispatch, $ref, literals, anyOf/oneOf),
// json_schema_keywords.cc (which keywords validate, draft spellings, formats),
// json_schema_merge.cc (allOf, $ref siblings, not, if/then/else, dependencies: folded into one
// "flat" schema), json_schema_one_of.cc (oneOf disjointness), json_schema_scalars.cc (strings,
// numbers), json_schema_containers.cc and json_schema_objects.cc (arrays, objects).
// Internal to the grammar stage; one per compile, not thread-safe.
//
// The grammar's language is a SUBSET of the schema's valid instances (fail closed): where a
// keyword can be enforced only by narrowing (uniqueItems, if/then/else without a negatable `if`,
// additional properties beside declared ones), the grammar narrows; where it cannot be enforced
// at all, the compile is refused naming the keyword and its JSON pointer.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/grammar.h"
#include "grammar/json_rules.h"
#include "grammar/json_schema.h"

namespace ogai::grammar::schema {

using Json = nlohmann::ordered_json;

// JSON types as bits, for oneOf's disjointness check. Integer is part of number.
enum TypeBits : unsigned {
  kNull = 1,
  kBool = 2,
  kInteger = 4,
  kFraction = 8,
  kString = 16,
  kArray = 32,
  kObject = 64,
  kAll = 127
};
unsigned type_bit(const std::string& t);  // 0 for an unknown name
unsigned value_bits(const Json& v);
std::string escape_pointer(const std::string& key);              // a key as a JSON pointer token
std::string compact(const Json& v);                              // the value's compact JSON text
bool json_equal(const Json& a, const Json& b);                   // JSON Schema equality (key order ignored, 1 == 1.0)
bool dictsort_less(const std::string& a, const std::string& b);  // Jinja dictsort's key order

// Internal keyword of flat schemas: values `not` excludes (never read from a user's schema:
// normalize() drops unknown keywords).
inline constexpr const char* kNotEnum = "$ogai:notEnum";

// Keyword classes (json_schema_keywords.cc).
bool is_enforced_keyword(const std::string& k);  // compiled by ogai
bool is_refused_keyword(const std::string& k);   // validation keywords ogai cannot enforce
bool is_enforced_format(const std::string& f);   // string formats the grammar enforces

class SchemaCompiler {
 public:
  SchemaCompiler(const Json& root, std::string where, const JsonSchemaOptions& options);
  Grammar compile();

 private:
  [[noreturn]] void unsupported(const std::string& ptr, const std::string& what) const;
  [[noreturn]] void invalid(const std::string& ptr, const std::string& what) const;

  // --- json_schema_keywords.cc
  // `s` with its enforced keywords only, draft spellings made 2020-12 (const -> enum, array
  // items -> prefixItems, dependencies -> dependent*, boolean exclusive bounds -> numbers);
  // annotations and unknown keywords dropped, formats ogai does not enforce reported; a
  // validation keyword ogai cannot enforce is refused.
  Json normalize(const Json& s, const std::string& ptr);

  // --- json_schema_merge.cc
  // The schema `s` as one flat schema: no $ref beside keywords, allOf, not, if/then/else or
  // dependent*: those are folded in (anyOf/oneOf stay, to be distributed). `false` when it
  // provably allows nothing.
  Json flatten(const Json& s, const std::string& ptr, int depth);
  // Both flat schemas at once (false when they contradict).
  Json merge(const Json& a, const Json& b, const std::string& ptr);
  // merge()'s parts: x's additionalProperties applied to the names y declares that x does not
  // (and to y's patterns); both sides' prefixItems merged into a's; one keyword present on both
  // sides merged into `o` (false when the two contradict); two multipleOf values as one.
  void cover_additional(const Json& x, Json& y, const std::string& ptr);
  void merge_prefix_items(Json& a, Json& b, const std::string& ptr) const;
  bool merge_keyword(const std::string& k, Json& o, const Json& v, const std::string& ptr);
  Json merged_multiple_of(const Json& o, const Json& v, const std::string& ptr) const;
  // A flat schema every instance of which fails `n` (a sound under-approximation of not n);
  // nullopt when there is none ogai can state.
  std::optional<Json> negate(const Json& n, const std::string& ptr, int depth);
  Json apply_conditional(Json base, const Json& s, const std::string& ptr, int depth);
  Json apply_dependencies(Json base, const std::string& ptr, int depth);
  const Json& keep(Json j);  // a stable home for a schema made while compiling

  // --- json_schema.cc
  // The grammar of (sub)schema `s` at JSON pointer `ptr`; nullopt when it allows no value.
  std::optional<Sequence> maybe(const Json& s, const std::string& ptr, int depth);
  Sequence schema(const Json& s, const std::string& ptr, int depth);  // an error when nothing fits
  std::optional<Sequence> flat_schema(const Json& flat, const std::string& ptr, int depth);
  std::vector<std::string> type_list(const Json& s, const std::string& ptr) const;
  std::optional<Sequence> typed(const Json& s, const std::string& t, const std::string& ptr, int depth);
  std::optional<Sequence> literals(const Json& s, const std::string& ptr, int depth);
  // `v` as the dialect writes it (compact JSON in JSON); nullopt when the dialect cannot.
  std::optional<std::string> literal_text(const Json& v) const;
  std::optional<Sequence> alternatives(const Json& base, const char* key, const std::string& ptr, int depth);
  // Whether the compact text of `value` is in the language of `s` (a subset of its instances).
  bool accepts(const Json& s, const Json& value, const std::string& ptr);
  // The schema a local JSON pointer (or anchor) names.
  const Json& resolve(const std::string& ref, const std::string& ptr) const;
  std::string ref_pointer(const Json& ref, const std::string& ptr) const;
  // The rule of a $ref target (one per pointer; recursion goes through it).
  std::uint32_t ref_rule(const Json& ref, const std::string& ptr, int depth);

  // --- json_schema_one_of.cc
  const Json& follow_refs(const Json* s, int hops = 0) const;
  unsigned possible_types(const Json& raw, int depth = 0) const;
  std::map<std::string, std::set<std::string>> pinned(const Json& raw) const;
  bool disjoint(const Json& a, const Json& b) const;
  void check_disjoint(const std::vector<Json>& list, const std::string& ptr) const;

  // --- json_schema_scalars.cc
  std::optional<std::int64_t> count(const Json& s, const char* key, const std::string& ptr) const;
  std::optional<Sequence> string_schema(const Json& s, const std::string& ptr);
  std::optional<double> bound(const Json& s, const char* key, const std::string& ptr) const;
  std::optional<Sequence> integer_schema(const Json& s, const std::string& ptr);
  std::optional<Sequence> number_schema(const Json& s, const std::string& ptr);
  // Numbers (integers: `integer`) that are multiples of multipleOf, within the bounds.
  std::optional<Sequence> multiple_schema(const Json& s, const std::string& ptr, bool integer);

  // --- json_schema_objects.cc / json_schema_containers.cc
  std::optional<Sequence> object_schema(const Json& s, const std::string& ptr, int depth);
  std::optional<Sequence> map_schema(const Json& s, const std::string& ptr, int depth);
  Sequence key_schema(const Json& s, const std::string& ptr, int depth);
  // The rules choosing among declared members in order (each an Element; required ones never
  // skipped) with a count of members written kept within [min, max]; the first rule, or nullopt
  // when no choice fits the bounds. Built iteratively, last member first: a schema's width never
  // becomes stack depth (issue 37 item 1).
  struct Member {
    Element element;
    bool required;
  };
  std::optional<std::uint32_t> member_rules(const std::vector<Member>& members, std::int64_t min,
                                            std::optional<std::int64_t> max, const std::string& ptr);
  bool name_allowed(const Json& s, const std::string& name, const std::string& ptr);
  Json value_schema_of(const Json& s, const std::string& name, const Json* declared, const std::string& ptr);
  bool regex_matches(const std::string& pattern, const std::string& text, const std::string& ptr);
  // Arrays: the item bounds the keywords leave (nullopt: no array fits), one position's item rule,
  // the rule of the items after the leading ones (from `k` on), and the whole array.
  struct ArrayShape {
    Json prefix = Json::array();  // prefixItems
    Json rest;                    // items (true when absent)
    std::int64_t min = 0;
    std::optional<std::int64_t> max;
    const Json* contains = nullptr;
    std::int64_t contained = 0;  // items from the start that must match `contains`; -1: all
    std::int64_t uniform = 0;    // positions from here on share one schema
  };
  std::optional<ArrayShape> array_shape(const Json& s, const std::string& ptr);
  std::optional<Element> array_element(const ArrayShape& a, std::int64_t i, const std::string& ptr, int depth);
  std::optional<std::uint32_t> array_tail(const ArrayShape& a, std::int64_t k, const std::string& ptr, int depth);
  Sequence array_comma();
  std::optional<Sequence> array_schema(const Json& s, const std::string& ptr, int depth);

  const Json& root_;
  std::string where_;
  JsonSchemaOptions options_;
  GrammarBuilder b_;
  JsonRules j_;
  std::map<std::string, std::uint32_t> refs_;  // $ref pointer -> rule
  std::deque<Json> kept_;                      // schemas made while compiling (stable addresses)
  std::map<std::string, std::shared_ptr<const CompiledGrammar>> regexes_;  // pattern -> its grammar
  int inlined_ = 0;                                                        // $ref targets being inlined (a cycle bound)
};

}  // namespace ogai::grammar::schema
