// SchemaCompiler: objects. Declared properties (properties, and required names beside them) in
// declared order, each value also under the patternProperties it matches; min/maxProperties
// counted. Without declared or required names the object is a map whose keys come from
// patternProperties or propertyNames and whose values from their schemas or
// additionalProperties. Beside declared names no other key is generated (a subset).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "base/error.h"
#include "grammar/compile_budget.h"
#include "grammar/matcher.h"
#include "grammar/regex.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

bool dictsort_less(const std::string& a, const std::string& b) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  return lower(a) < lower(b);
}

bool SchemaCompiler::regex_matches(const std::string& pattern, const std::string& text, const std::string& ptr) {
  auto it = regexes_.find(pattern);
  if (it == regexes_.end()) {
    GrammarBuilder b(where_);
    Sequence body =
        compile_regex(b, pattern, Spelling::kUtf8, RegexAnchoring::kSearch, where_ + "#" + ptr + "/patternProperties");
    it = regexes_.emplace(pattern, CompiledGrammar::compile(b.finish(b.rule("root", {body})))).first;
  }
  Matcher m(it->second);
  const Matcher::State st = m.walk(m.initial(), text);
  if (m.pruned()) unsupported(ptr + "/patternProperties", "a pattern too ambiguous to test names against");
  return st != Matcher::kDead && m.accepting(st);
}

bool SchemaCompiler::name_allowed(const Json& s, const std::string& name, const std::string& ptr) {
  if (!s.contains("propertyNames")) return true;
  const Json& names = s.at("propertyNames");
  if (names.is_boolean()) return names.get<bool>();
  return accepts(names, Json(name), ptr + "/propertyNames");
}

Json SchemaCompiler::value_schema_of(const Json& s, const std::string& name, const Json* declared,
                                     const std::string& ptr) {
  Json v = declared ? *declared : Json(true);
  bool matched = false;
  if (s.contains("patternProperties")) {
    const Json& pats = s.at("patternProperties");
    if (!pats.is_object()) invalid(ptr + "/patternProperties", "expected an object");
    for (auto it = pats.begin(); it != pats.end(); ++it)
      if (regex_matches(it.key(), name, ptr)) {
        v = v == Json(true) ? *it : Json{{"allOf", Json::array({v, *it})}};
        matched = true;
      }
  }
  if (!declared && !matched && s.contains("additionalProperties")) {
    const Json& ap = s.at("additionalProperties");
    v = v == Json(true) ? ap : Json{{"allOf", Json::array({v, ap})}};
  }
  return v;
}

Sequence SchemaCompiler::key_schema(const Json& s, const std::string& ptr, int depth) {
  if (!s.contains("propertyNames") || s.at("propertyNames") == Json(true)) return {j_.string()};
  Json names = {{"allOf", Json::array({s.at("propertyNames"), Json{{"type", "string"}}})}};
  return schema(keep(std::move(names)), ptr + "/propertyNames", depth + 1);
}

std::optional<Sequence> SchemaCompiler::object_schema(const Json& s, const std::string& ptr, int depth) {
  const Json empty = Json::object();
  const Json& props = s.contains("properties") ? s.at("properties") : empty;
  if (!props.is_object()) invalid(ptr + "/properties", "expected an object");
  // Names looked up in hash sets, and the budget polled per name: 20,000 required properties
  // spent seconds in linear lookups here that neither the time budget nor a client that left
  // could stop (issue 28 item 2).
  std::vector<std::string> required;
  std::unordered_set<std::string> is_required;
  if (s.contains("required")) {
    const Json& r = s.at("required");
    if (!r.is_array()) invalid(ptr + "/required", "expected an array of property names");
    for (const auto& n : r) {
      check_compile_budget(ptr);
      if (!n.is_string()) invalid(ptr + "/required", "expected property names, got " + compact(n));
      if (is_required.insert(n.get<std::string>()).second) required.push_back(n.get<std::string>());
    }
  }
  const Json* extra = s.contains("additionalProperties") ? &s.at("additionalProperties") : nullptr;
  if (extra && !extra->is_boolean() && !extra->is_object())
    invalid(ptr + "/additionalProperties", "expected a boolean or a schema");
  if (props.empty() && required.empty()) return map_schema(s, ptr, depth);
  struct Prop {
    std::string name;
    Element member;
    bool required;
  };
  std::vector<Prop> list;
  auto add = [&](const std::string& name, const Json* declared, const std::string& p, bool req) -> bool {
    if (!name_allowed(s, name, ptr)) return !req;
    const Json value = value_schema_of(s, name, declared, ptr);
    auto seq = maybe(value, p, depth + 1);
    if (!seq) return !req;
    const std::optional<std::string> key = j_.key_literal(name);
    if (!key) return !req;  // a name the dialect cannot write
    Sequence member = b_.literal(*key);
    member.push_back(j_.ws());
    GrammarBuilder::append(member, b_.literal(":"));
    member.push_back(j_.ws());
    GrammarBuilder::append(member, *seq);
    member.push_back(j_.ws());
    list.push_back({name, GrammarBuilder::ref(b_.rule("#" + p, {member})), req});
    return true;
  };
  std::unordered_set<std::string> declared;
  for (auto it = props.begin(); it != props.end(); ++it) {
    check_compile_budget(ptr);
    declared.insert(it.key());
    const bool req = is_required.contains(it.key());
    if (!add(it.key(), &it.value(), ptr + "/properties/" + escape_pointer(it.key()), req)) return std::nullopt;
  }
  for (const auto& name : required)
    if (!declared.contains(name) && !add(name, nullptr, ptr + "/required", true)) return std::nullopt;
  if (j_.dialect().sorted_keys)  // as Jinja's dictsort orders them
    std::stable_sort(list.begin(), list.end(),
                     [](const Prop& a, const Prop& b) { return dictsort_less(a.name, b.name); });
  const std::int64_t min = count(s, "minProperties", ptr).value_or(0);
  const std::optional<std::int64_t> max = count(s, "maxProperties", ptr);
  if (min > static_cast<std::int64_t>(list.size()))
    unsupported(ptr + "/minProperties", fmt::format("'minProperties' {} above the {} properties ogai may generate "
                                                    "(beside declared properties no other key is generated)",
                                                    min, list.size()));
  std::vector<Member> members;
  members.reserve(list.size());
  for (const Prop& p : list) members.push_back({p.member, p.required});
  auto first = member_rules(members, min, max, ptr);
  if (!first) return std::nullopt;
  Sequence out = b_.literal("{");
  out.push_back(j_.ws());
  out.push_back(GrammarBuilder::ref(*first));
  GrammarBuilder::append(out, b_.literal("}"));
  return out;
}

// rule(i, c): members i.. with c written so far (c capped at `cap`: beyond the bounds it does not
// matter). rule(i, ·) needs only rule(i + 1, ·), so the table is filled from the last member back,
// one row at a time; at member i only counts that some choice reaches are built (at most i, at
// least the required members before i).
std::optional<std::uint32_t> SchemaCompiler::member_rules(const std::vector<Member>& members, std::int64_t min,
                                                          std::optional<std::int64_t> max, const std::string& ptr) {
  const auto n = static_cast<std::int64_t>(members.size());
  const std::int64_t cap = std::min<std::int64_t>(std::max<std::int64_t>({min, max.value_or(0), 1}), n);
  std::vector<std::int64_t> required_before(members.size() + 1, 0);
  for (std::size_t i = 0; i < members.size(); ++i) required_before[i + 1] = required_before[i] + members[i].required;
  using Row = std::vector<std::optional<std::uint32_t>>;  // [c]
  Row next(static_cast<std::size_t>(cap) + 1), row(static_cast<std::size_t>(cap) + 1);
  auto lowest = [&](std::int64_t i) { return std::min(required_before[static_cast<std::size_t>(i)], cap); };
  for (std::int64_t c = lowest(n); c <= cap; ++c)
    if (c >= min) next[static_cast<std::size_t>(c)] = b_.rule(fmt::format("#{}-{}-{}", ptr, n, c), {Sequence{}});
  for (std::int64_t i = n - 1; i >= 0; --i) {
    check_compile_budget(ptr);
    const Member& m = members[static_cast<std::size_t>(i)];
    std::fill(row.begin(), row.end(), std::nullopt);
    for (std::int64_t c = lowest(i); c <= std::min(i, cap); ++c) {
      std::vector<Sequence> alts;
      if (!max || c < *max)
        if (const auto& taken = next[static_cast<std::size_t>(std::min(c + 1, cap))]) {
          Sequence take = c > 0 ? b_.literal(",") : Sequence{};
          if (c > 0) take.push_back(j_.ws());
          take.push_back(m.element);
          take.push_back(GrammarBuilder::ref(*taken));
          alts.push_back(std::move(take));
        }
      if (!m.required)
        if (const auto& skipped = next[static_cast<std::size_t>(c)]) alts.push_back({GrammarBuilder::ref(*skipped)});
      if (!alts.empty()) row[static_cast<std::size_t>(c)] = b_.rule(fmt::format("#{}-{}-{}", ptr, i, c), std::move(alts));
    }
    std::swap(row, next);
  }
  return next[0];
}

std::optional<Sequence> SchemaCompiler::map_schema(const Json& s, const std::string& ptr, int depth) {
  const std::int64_t min = count(s, "minProperties", ptr).value_or(0);
  const std::optional<std::int64_t> max = count(s, "maxProperties", ptr);
  if (max && *max < min) return std::nullopt;
  const Json* pats = s.contains("patternProperties") ? &s.at("patternProperties") : nullptr;
  if (pats && !pats->is_object()) invalid(ptr + "/patternProperties", "expected an object");
  const bool names_free = !s.contains("propertyNames") || s.at("propertyNames") == Json(true);
  // The entry: a key and its value schema, or none (only {} is generated).
  std::optional<Sequence> key, value;
  if (pats && !pats->empty()) {
    if (names_free) {  // keys matching some pattern; values under every pattern's schema
      std::vector<Sequence> keys;
      Json all = true;
      for (auto it = pats->begin(); it != pats->end(); ++it) {
        keys.push_back(j_.string_with_regex(it.key(), /*search=*/true, where_ + "#" + ptr + "/patternProperties"));
        all = all == Json(true) ? *it : Json{{"allOf", Json::array({all, *it})}};
      }
      value = maybe(keep(std::move(all)), ptr + "/patternProperties", depth + 1);
      if (value) key = Sequence{GrammarBuilder::ref(b_.rule("#" + ptr + "/patternProperties-key", std::move(keys)))};
    }
  } else if (!(s.contains("additionalProperties") && s.at("additionalProperties") == Json(false)) &&
             s.value("propertyNames", Json(true)) != Json(false)) {
    value = maybe(s.value("additionalProperties", Json(true)), ptr + "/additionalProperties", depth + 1);
    if (value) key = key_schema(s, ptr, depth);
  }
  Sequence out = b_.literal("{");
  out.push_back(j_.ws());
  if (!key) {
    if (min > 0) return std::nullopt;
  } else {
    if (min > 1)
      unsupported(ptr + "/minProperties",
                  "'minProperties' above 1 on an object without declared properties "
                  "(ogai cannot keep generated keys distinct)");
    Sequence entry = *key;
    entry.push_back(j_.ws());
    GrammarBuilder::append(entry, b_.literal(":"));
    entry.push_back(j_.ws());
    GrammarBuilder::append(entry, *value);
    entry.push_back(j_.ws());
    const Element e = GrammarBuilder::ref(b_.rule("#" + ptr + "-entry", {entry}));
    Sequence more = b_.literal(",");
    more.push_back(j_.ws());
    more.push_back(e);
    if (!max || *max > 0) {
      Sequence filled = {e};
      GrammarBuilder::append(filled, b_.repeat(more, 0, max ? *max - 1 : -1, "#" + ptr + "-entries"));
      GrammarBuilder::append(out, min > 0 ? filled : b_.optional(filled, "#" + ptr + "-body"));
    }
  }
  GrammarBuilder::append(out, b_.literal("}"));
  return out;
}

}  // namespace ogai::grammar::schema
