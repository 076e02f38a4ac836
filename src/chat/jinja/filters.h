// Filters. @huggingface/jinja tells `x|f` and `x|f()` apart (e.g. `3.7|int` is 3 but
// `3.7|int(0)` is 3.7), so a filter receives `args == nullptr` for the bare form. Filters that
// engine lacks follow Jinja (count, d, list of a string, map with a filter name, select, reject,
// batch, round, min, max, sum, string of a dict as Python's repr, ...).
#pragma once

#include <optional>
#include <string_view>

#include "chat/jinja/interpreter.h"

namespace ogai::chat::jinja {

struct FilterCall {
  Renderer& r;
  std::string_view name;
  const Value& operand;
  const Args* args;  // null: bare form
  Scope* scope;

  bool bare() const { return args == nullptr || (args->positional.empty() && args->keyword.empty()); }
  const Value* arg(std::size_t i, std::string_view keyword = {}) const { return args ? args->get(i, keyword) : nullptr; }
  [[noreturn]] void unsupported() const;
};

// Filters on lists (filters_list.cc); nullopt when `name` is not a list filter.
std::optional<Value> list_filter(const FilterCall& c);
// Reads `item.a.b.0` the way sort/map/sum attribute= arguments do; undefined when missing.
Value attribute_path(const Value& item, std::string_view path);

}  // namespace ogai::chat::jinja
