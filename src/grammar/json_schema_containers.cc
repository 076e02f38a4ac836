// SchemaCompiler: arrays (prefixItems, items, contains/minContains/maxContains, counts,
// uniqueItems kept to at most one item).
#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "grammar/schema_compiler.h"

namespace ogai::grammar::schema {

std::optional<Sequence> SchemaCompiler::array_schema(const Json& s, const std::string& ptr, int depth) {
  const Json none = Json::array();
  const Json& prefix = s.contains("prefixItems") ? s.at("prefixItems") : none;
  if (!prefix.is_array()) invalid(ptr + "/prefixItems", "expected an array of schemas");
  const Json rest = s.value("items", Json(true));
  const std::string rest_ptr = ptr + "/items";
  std::int64_t min = count(s, "minItems", ptr).value_or(0);
  std::optional<std::int64_t> max = count(s, "maxItems", ptr);
  auto cap = [&](std::int64_t v) { max = std::min(max.value_or(v), v); };
  // contains: the first minContains items match it; with maxContains every item does (then the
  // count of matches is the length). A subset either way.
  const Json* contains = s.contains("contains") ? &s.at("contains") : nullptr;
  std::int64_t contained = 0;  // items from the start that must match `contains`; -1: all
  if (contains) {
    const std::int64_t min_c = count(s, "minContains", ptr).value_or(1);
    const std::optional<std::int64_t> max_c = count(s, "maxContains", ptr);
    if (max_c && *max_c < min_c) return std::nullopt;
    if (max_c) {
      contained = -1;
      cap(*max_c);
      min = std::max(min, min_c);
    } else if (min_c > 0) {
      contained = min_c;
      min = std::max(min, min_c);
    }
  }
  if (s.value("uniqueItems", Json(false)) == Json(true) && max.value_or(2) > 1) {
    if (min > 1)
      unsupported(ptr + "/uniqueItems", "'uniqueItems' with more than one item required (ogai keeps unique arrays "
                                        "to at most one item)");
    cap(1);  // at most one item is always unique
  }
  if (rest == Json(false)) cap(static_cast<std::int64_t>(prefix.size()));
  if (max && *max < min) return std::nullopt;
  auto comma = [&]() {
    Sequence c = b_.literal(",");
    c.push_back(j_.ws());
    return c;
  };
  // Positions before `uniform` may differ; from there on every item has the same schema.
  const std::int64_t uniform = std::max<std::int64_t>(static_cast<std::int64_t>(prefix.size()), std::max<std::int64_t>(contained, 0));
  auto item_schema = [&](std::int64_t i, std::string& p) {
    Json item = i < static_cast<std::int64_t>(prefix.size()) ? prefix[static_cast<std::size_t>(i)] : rest;
    p = i < static_cast<std::int64_t>(prefix.size()) ? ptr + "/prefixItems/" + std::to_string(i) : rest_ptr;
    if (contains && (contained < 0 || i < contained)) {
      item = Json{{"allOf", Json::array({item, *contains})}};
      p = ptr + "/contains";
    }
    return item;
  };
  auto element = [&](std::int64_t i) -> std::optional<Element> {
    std::string p;
    Json item = item_schema(i, p);
    auto e = maybe(keep(std::move(item)), p, depth + 1);
    if (!e) return std::nullopt;
    e->push_back(j_.ws());
    return GrammarBuilder::ref(b_.rule("#" + p + "-element-" + std::to_string(i), {*e}));
  };
  std::vector<Element> elements;
  for (std::int64_t i = 0; i < uniform && (!max || i < *max); ++i) {
    auto e = element(i);
    if (!e) {
      cap(i);
      break;
    }
    elements.push_back(*e);
  }
  if (max && *max < min) return std::nullopt;
  // The tail after the first `uniform` items.
  std::vector<Sequence> tail_alts;
  const std::int64_t k = static_cast<std::int64_t>(elements.size());
  const std::int64_t tail_min = std::max<std::int64_t>(min - k, 0);
  const std::int64_t tail_max = max ? *max - k : -1;
  std::optional<Element> r;
  if (tail_max != 0 && k == uniform) r = element(uniform);
  if (!r) {
    if (tail_min > 0) return std::nullopt;
    tail_alts.push_back({});
  } else {
    Sequence more = comma();
    more.push_back(*r);
    if (k > 0) {
      tail_alts.push_back(b_.repeat(more, tail_min, tail_max, "#" + ptr + "-items"));
    } else {
      Sequence filled = {*r};
      GrammarBuilder::append(filled, b_.repeat(more, std::max<std::int64_t>(tail_min - 1, 0),
                                               tail_max < 0 ? -1 : tail_max - 1, "#" + ptr + "-items"));
      tail_alts.push_back(filled);
      if (tail_min == 0) tail_alts.push_back({});
    }
  }
  std::uint32_t next = b_.rule("#" + ptr + "-tail", std::move(tail_alts));
  for (std::size_t j = elements.size(); j-- > 0;) {
    std::vector<Sequence> alts;
    if (static_cast<std::int64_t>(j) >= min) alts.push_back({});
    Sequence item = j == 0 ? Sequence{} : comma();
    item.push_back(elements[j]);
    item.push_back(GrammarBuilder::ref(next));
    alts.push_back(std::move(item));
    next = b_.rule("#" + ptr + "-from" + std::to_string(j), std::move(alts));
  }
  Sequence out = b_.literal("[");
  out.push_back(j_.ws());
  out.push_back(GrammarBuilder::ref(next));
  GrammarBuilder::append(out, b_.literal("]"));
  return out;
}
}  // namespace ogai::grammar::schema
