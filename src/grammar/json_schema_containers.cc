// SchemaCompiler: objects (properties in order, required, additionalProperties) and arrays
// (items, prefixItems, counts).
#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

Sequence SchemaCompiler::object_schema(const Json& s, const std::string& ptr, int depth) {
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

Sequence SchemaCompiler::map_schema(const Json& value_schema, const std::string& ptr, int depth) {
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

Sequence SchemaCompiler::array_schema(const Json& s, const std::string& ptr, int depth) {
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
}  // namespace ogai::grammar::schema
