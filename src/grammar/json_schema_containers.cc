// SchemaCompiler: arrays (prefixItems, items, contains/minContains/maxContains, counts,
// uniqueItems kept to at most one item).
#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

std::optional<SchemaCompiler::ArrayShape> SchemaCompiler::array_shape(const Json& s, const std::string& ptr) {
  ArrayShape a;
  if (s.contains("prefixItems")) a.prefix = s.at("prefixItems");
  if (!a.prefix.is_array()) invalid(ptr + "/prefixItems", "expected an array of schemas");
  a.rest = s.value("items", Json(true));
  a.min = count(s, "minItems", ptr).value_or(0);
  a.max = count(s, "maxItems", ptr);
  auto cap = [&a](std::int64_t v) { a.max = std::min(a.max.value_or(v), v); };
  // contains: the first minContains items match it; with maxContains every item does (then the
  // count of matches is the length). A subset either way.
  a.contains = s.contains("contains") ? &s.at("contains") : nullptr;
  if (a.contains) {
    const std::int64_t min_c = count(s, "minContains", ptr).value_or(1);
    const std::optional<std::int64_t> max_c = count(s, "maxContains", ptr);
    if (max_c && *max_c < min_c) return std::nullopt;
    if (max_c) {
      a.contained = -1;
      cap(*max_c);
      a.min = std::max(a.min, min_c);
    } else if (min_c > 0) {
      a.contained = min_c;
      a.min = std::max(a.min, min_c);
    }
  }
  if (s.value("uniqueItems", Json(false)) == Json(true) && a.max.value_or(2) > 1) {
    if (a.min > 1)
      unsupported(ptr + "/uniqueItems", "'uniqueItems' with more than one item required (ogai keeps unique arrays "
                                        "to at most one item)");
    cap(1);  // at most one item is always unique
  }
  if (a.rest == Json(false)) cap(static_cast<std::int64_t>(a.prefix.size()));
  if (a.max && *a.max < a.min) return std::nullopt;
  a.uniform = std::max<std::int64_t>(static_cast<std::int64_t>(a.prefix.size()), std::max<std::int64_t>(a.contained, 0));
  return a;
}

std::optional<Element> SchemaCompiler::array_element(const ArrayShape& a, std::int64_t i, const std::string& ptr,
                                                     int depth) {
  const bool in_prefix = i < static_cast<std::int64_t>(a.prefix.size());
  Json item = in_prefix ? a.prefix[static_cast<std::size_t>(i)] : a.rest;
  std::string p = in_prefix ? ptr + "/prefixItems/" + std::to_string(i) : ptr + "/items";
  if (a.contains && (a.contained < 0 || i < a.contained)) {
    item = Json{{"allOf", Json::array({item, *a.contains})}};
    p = ptr + "/contains";
  }
  auto e = maybe(keep(std::move(item)), p, depth + 1);
  if (!e) return std::nullopt;
  e->push_back(j_.ws());
  return GrammarBuilder::ref(b_.rule("#" + p + "-element-" + std::to_string(i), {*e}));
}

Sequence SchemaCompiler::array_comma() {
  Sequence c = b_.literal(",");
  c.push_back(j_.ws());
  return c;
}

std::optional<std::uint32_t> SchemaCompiler::array_tail(const ArrayShape& a, std::int64_t k, const std::string& ptr,
                                                        int depth) {
  std::vector<Sequence> alts;
  const std::int64_t tail_min = std::max<std::int64_t>(a.min - k, 0);
  const std::int64_t tail_max = a.max ? *a.max - k : -1;
  std::optional<Element> r;
  if (tail_max != 0 && k == a.uniform) r = array_element(a, a.uniform, ptr, depth);
  if (!r) {
    if (tail_min > 0) return std::nullopt;
    alts.push_back({});
  } else {
    Sequence more = array_comma();
    more.push_back(*r);
    if (k > 0) {
      alts.push_back(b_.repeat(more, tail_min, tail_max, "#" + ptr + "-items"));
    } else {
      Sequence filled = {*r};
      GrammarBuilder::append(filled, b_.repeat(more, std::max<std::int64_t>(tail_min - 1, 0),
                                               tail_max < 0 ? -1 : tail_max - 1, "#" + ptr + "-items"));
      alts.push_back(filled);
      if (tail_min == 0) alts.push_back({});
    }
  }
  return b_.rule("#" + ptr + "-tail", std::move(alts));
}

std::optional<Sequence> SchemaCompiler::array_schema(const Json& s, const std::string& ptr, int depth) {
  std::optional<ArrayShape> a = array_shape(s, ptr);
  if (!a) return std::nullopt;
  // Positions before `uniform` may differ; from there on every item has the same schema.
  std::vector<Element> elements;
  for (std::int64_t i = 0; i < a->uniform && (!a->max || i < *a->max); ++i) {
    auto e = array_element(*a, i, ptr, depth);
    if (!e) {
      a->max = std::min(a->max.value_or(i), i);
      break;
    }
    elements.push_back(*e);
  }
  if (a->max && *a->max < a->min) return std::nullopt;
  // The tail after the first `uniform` items, then each leading item from the last to the first.
  std::optional<std::uint32_t> next = array_tail(*a, static_cast<std::int64_t>(elements.size()), ptr, depth);
  if (!next) return std::nullopt;
  for (std::size_t j = elements.size(); j-- > 0;) {
    std::vector<Sequence> alts;
    if (static_cast<std::int64_t>(j) >= a->min) alts.push_back({});
    Sequence item = j == 0 ? Sequence{} : array_comma();
    item.push_back(elements[j]);
    item.push_back(GrammarBuilder::ref(*next));
    alts.push_back(std::move(item));
    next = b_.rule("#" + ptr + "-from" + std::to_string(j), std::move(alts));
  }
  Sequence out = b_.literal("[");
  out.push_back(j_.ws());
  out.push_back(GrammarBuilder::ref(*next));
  GrammarBuilder::append(out, b_.literal("]"));
  return out;
}
}  // namespace ogai::grammar::schema
