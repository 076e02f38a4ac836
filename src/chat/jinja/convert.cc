#include "chat/jinja/convert.h"

#include <algorithm>
#include <limits>

#include "base/cancel.h"
#include "base/json_parse.h"
#include "chat/jinja/error.h"

namespace ogai::chat::jinja {
namespace {

constexpr int kMaxDepth = kMaxJsonDepth;  // as deep as parse_json_bounded lets a document be

// A canonical array index ("0", "17"; not "01" or "-1") below 2^32 - 1.
bool is_array_index(std::string_view k, std::uint64_t& value) {
  if (k.empty() || k.size() > 10 || (k.size() > 1 && k[0] == '0')) return false;
  value = 0;
  for (char c : k) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value < 4294967295ULL;
}

Value object_from_json(Renderer& r, const nlohmann::ordered_json& j, int depth) {
  ObjectData* o = r.new_object();
  o->entries.reserve(j.size());
  bool indices = false;
  for (const auto& [key, value] : j.items()) {
    std::uint64_t ignored;
    indices |= is_array_index(key, ignored);
    o->entries.push_back({key, from_json(r, value, depth + 1)});
  }
  if (indices) {
    auto index_of = [](const Entry& e) {
      std::uint64_t v = 0;
      return is_array_index(e.key, v) ? v : std::numeric_limits<std::uint64_t>::max();
    };
    std::stable_sort(o->entries.begin(), o->entries.end(),
                     [&](const Entry& a, const Entry& b) { return index_of(a) < index_of(b); });
  }
  return Value::object(o);
}

}  // namespace

Value from_json(Renderer& r, const nlohmann::ordered_json& j, int depth) {
  check_cancelled("the chat template's variables");  // a client that left stops here (base/cancel.h)
  if (depth > kMaxDepth) template_fail("input JSON nested more than {} levels deep", kMaxDepth);
  using T = nlohmann::ordered_json::value_t;
  switch (j.type()) {
    case T::null: return Value::none();
    case T::boolean: return Value::boolean(j.get<bool>());
    case T::number_integer: return Value::integer(j.get<std::int64_t>());
    case T::number_unsigned: {
      auto u = j.get<std::uint64_t>();
      return u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? Value::integer(static_cast<std::int64_t>(u))
                 : Value::floating(static_cast<double>(u));
    }
    case T::number_float: return Value::number(j.get<double>());
    case T::string: {
      const std::string& s = j.get_ref<const std::string&>();
      if (s.size() >= std::numeric_limits<std::uint32_t>::max()) template_fail("input string too long");
      return Value::string(s);
    }
    case T::array: {
      ArrayData* a = r.new_array();
      a->items.reserve(j.size());
      for (const auto& item : j) a->items.push_back(from_json(r, item, depth + 1));
      return Value::array(a);
    }
    case T::object: return object_from_json(r, j, depth);
    default: template_fail("input JSON holds a value templates cannot read (binary data)");
  }
}

}  // namespace ogai::chat::jinja
