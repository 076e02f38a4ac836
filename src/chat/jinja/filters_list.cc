// Filters on lists: first, last, length/count, list, reverse, sort, unique, string, join (in
// filters.cc), selectattr/rejectattr, map, select/reject, batch, min, max, sum.
#include <algorithm>

#include "chat/jinja/error.h"
#include "chat/jinja/filters.h"
#include "chat/jinja/text.h"

namespace ogai::chat::jinja {
namespace {

using Items = std::pmr::vector<Value>;

bool bool_arg(const FilterCall& c, std::size_t i, std::string_view name) {
  const Value* v = c.arg(i, name);
  if (v && !v->is(Kind::kBool)) template_fail("{}() {} must be a boolean", c.name, name);
  return v && v->as_bool();
}

Value array_of(Renderer& r, Items items) {
  ArrayData* a = r.new_array();
  a->items = std::move(items);
  return Value::array(a);
}

Value sort(const FilterCall& c, const Items& items) {
  bool reverse = bool_arg(c, 0, "reverse"), case_sensitive = bool_arg(c, 1, "case_sensitive");
  const Value* attribute = c.arg(2, "attribute");
  if (attribute && !attribute->is_string() && !attribute->is(Kind::kInt) && !attribute->is_none())
    template_fail("sort() attribute must be a string, an integer or none");
  std::string path;
  if (attribute && !attribute->is_none()) append_value_text(path, *attribute);
  auto key = [&](const Value& v) { return path.empty() ? v : attribute_path(v, path); };
  Items out(items, c.r.heap().resource());
  std::stable_sort(out.begin(), out.end(), [&](const Value& a, const Value& b) {
    int cmp = compare_values(key(a), key(b), case_sensitive);
    return reverse ? cmp > 0 : cmp < 0;
  });
  return array_of(c.r, std::move(out));
}

bool is_container(const Value& v) { return v.is_object(); }

Value select_attr(const FilterCall& c, const Items& items, bool select) {
  for (const Value& item : items)
    if (!is_container(item)) template_fail("{}() can only be applied to a list of objects", c.name);
  const Value* attr = c.arg(0);
  const Value* test = c.arg(1);
  if (!attr || !attr->is_string() || (test && !test->is_string())) template_fail("{}() arguments must be strings", c.name);
  Args test_args = c.r.new_args();
  if (const Value* v = c.arg(2)) test_args.positional.push_back(*v);
  Items out(c.r.heap().resource());
  for (const Value& item : items) {
    const Value* a = item.object().find(attr->as_string());
    bool hit = a && (test ? c.r.test(test->as_string(), *a, test_args) : truthy(*a));
    if (hit == select) out.push_back(item);
  }
  return array_of(c.r, std::move(out));
}

Value select_test(const FilterCall& c, const Items& items, bool select) {
  const Value* test = c.arg(0);
  if (test && !test->is_string()) template_fail("{}() test name must be a string", c.name);
  Args test_args = c.r.new_args();
  if (c.args)
    for (std::size_t i = 1; i < c.args->positional.size(); ++i) test_args.positional.push_back(c.args->positional[i]);
  Items out(c.r.heap().resource());
  for (const Value& item : items)
    if ((test ? c.r.test(test->as_string(), item, test_args) : truthy(item)) == select) out.push_back(item);
  return array_of(c.r, std::move(out));
}

Value map(const FilterCall& c, const Items& items) {
  Items out(c.r.heap().resource());
  if (const Value* attr = c.args ? c.args->keyword_arg("attribute") : nullptr) {
    if (!attr->is_string()) template_fail("map() attribute must be a string");
    const Value* fallback = c.args->keyword_arg("default");
    for (const Value& item : items) {
      if (!is_container(item)) template_fail("map(attribute=...) needs a list of objects, got {} item", a_kind(item));
      Value v = attribute_path(item, attr->as_string());
      out.push_back(v.is_undefined() && fallback ? *fallback : v);
    }
    return array_of(c.r, std::move(out));
  }
  const Value* name = c.arg(0);
  if (!name || !name->is_string()) template_fail("map() needs a filter name or attribute=");
  Args rest = c.r.new_args();
  rest.positional.assign(c.args->positional.begin() + 1, c.args->positional.end());
  rest.keyword = c.args->keyword;
  bool bare = rest.positional.empty() && rest.keyword.empty();
  for (const Value& item : items) out.push_back(c.r.filter(name->as_string(), item, bare ? nullptr : &rest, c.scope));
  return array_of(c.r, std::move(out));
}

Value batch(const FilterCall& c, const Items& items) {
  const Value* size = c.arg(0, "linecount");
  if (!size || !size->is(Kind::kInt) || size->as_int() < 1) template_fail("batch() needs a positive integer size");
  const Value* fill = c.arg(1, "fill_with");
  auto n = static_cast<std::size_t>(size->as_int());
  Items out(c.r.heap().resource());
  for (std::size_t i = 0; i < items.size(); i += n) {
    Items row(c.r.heap().resource());
    for (std::size_t k = i; k < std::min(items.size(), i + n); ++k) row.push_back(items[k]);
    while (fill && !fill->is_none() && row.size() < n) row.push_back(*fill);
    out.push_back(array_of(c.r, std::move(row)));
  }
  return array_of(c.r, std::move(out));
}

Value extreme(const FilterCall& c, const Items& items, bool max) {
  bool case_sensitive = bool_arg(c, 0, "case_sensitive");
  const Value* attribute = c.arg(1, "attribute");
  if (items.empty()) return Value::undefined(c.name);
  auto key = [&](const Value& v) { return attribute && attribute->is_string() ? attribute_path(v, attribute->as_string()) : v; };
  const Value* best = &items[0];
  for (const Value& v : items) {
    int cmp = compare_values(key(v), key(*best), case_sensitive);
    if (max ? cmp > 0 : cmp < 0) best = &v;
  }
  return *best;
}

Value sum(const FilterCall& c, const Items& items) {
  const Value* attribute = c.arg(0, "attribute");
  const Value* start = c.arg(1, "start");
  Value total = start ? *start : Value::integer(0);
  for (const Value& item : items) {
    Value v = attribute && attribute->is_string() ? attribute_path(item, attribute->as_string()) : item;
    if (!v.is_numeric() || !total.is_numeric()) template_fail("sum() needs numbers, got {}", a_kind(v));
    total = binary_operation(c.r, BinaryOp::kAdd, total, v);
  }
  return total;
}

Value unique(const FilterCall& c, const Items& items) {
  Items out(c.r.heap().resource());
  for (const Value& item : items)
    if (std::none_of(out.begin(), out.end(), [&](const Value& seen) { return strict_equal(seen, item); })) out.push_back(item);
  return array_of(c.r, std::move(out));
}

}  // namespace

Value attribute_path(const Value& item, std::string_view path) {
  Value v = item;
  for (std::size_t start = 0;;) {
    std::size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? path.npos : dot - start);
    if (v.is_object()) {
      const Value* found = v.object().find(part);
      v = found ? *found : Value::undefined(part);
    } else if (v.is_array() && !part.empty() && part.size() < 10 &&
               std::all_of(part.begin(), part.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      std::size_t i = std::stoul(std::string(part));
      v = i < v.array().items.size() ? v.array().items[i] : Value::undefined(part);
    } else {
      return Value::undefined(part);
    }
    if (dot == std::string_view::npos) return v;
    start = dot + 1;
  }
}

std::optional<Value> list_filter(const FilterCall& c) {
  const Items& items = c.operand.array().items;
  std::string_view n = c.name;
  if (n == "sort") return sort(c, items);
  if (n == "selectattr" || n == "rejectattr") return select_attr(c, items, n == "selectattr");
  if (n == "select" || n == "reject") return select_test(c, items, n == "select");
  if (n == "map") return map(c, items);
  if (n == "batch") return batch(c, items);
  if (n == "min" || n == "max") return extreme(c, items, n == "max");
  if (n == "sum") return sum(c, items);
  if (!c.bare()) return std::nullopt;
  if (n == "list") return c.operand;
  if (n == "first") return items.empty() ? Value::undefined("first") : items.front();
  if (n == "last") return items.empty() ? Value::undefined("last") : items.back();
  if (n == "length" || n == "count") return Value::integer(static_cast<std::int64_t>(items.size()));
  if (n == "reverse") return array_of(c.r, Items(items.rbegin(), items.rend(), c.r.heap().resource()));
  if (n == "unique") return unique(c, items);
  if (n == "string") {
    JsonOptions o;
    o.undefined_as_null = false;
    o.max_bytes = c.r.max_bytes();
    std::string s;
    append_json(s, c.operand, o);
    return c.r.string(s);
  }
  return std::nullopt;
}

}  // namespace ogai::chat::jinja
