#include "chat/jinja/value.h"

#include <cmath>

namespace ogai::chat::jinja {

Value Value::number(double d) {
  if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18) return integer(static_cast<std::int64_t>(d));
  return floating(d);
}

const Value* ObjectData::find(std::string_view key) const {
  for (const Entry& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

void ObjectData::set(std::string_view key, Value value) {
  for (Entry& e : entries) {
    if (e.key == key) {
      e.value = value;
      return;
    }
  }
  entries.push_back({key, value});
}

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Kind::kUndefined:
    case Kind::kNone: return false;
    case Kind::kBool:
    case Kind::kInt: return v.as_int() != 0;
    case Kind::kFloat: return v.as_float() != 0 && !std::isnan(v.as_float());
    case Kind::kString: return !v.as_string().empty();
    case Kind::kArray: return !v.array().items.empty();
    case Kind::kObject: return v.object().type == ObjectType::kNamespace || !v.object().entries.empty();
    case Kind::kFunction: return true;
  }
  return false;
}

const char* kind_name(const Value& v) {
  switch (v.kind()) {
    case Kind::kUndefined: return "undefined";
    case Kind::kNone: return "none";
    case Kind::kBool: return "boolean";
    case Kind::kInt: return "integer";
    case Kind::kFloat: return "float";
    case Kind::kString: return "string";
    case Kind::kArray: return v.array().tuple ? "tuple" : "list";
    case Kind::kObject: return v.object().type == ObjectType::kNamespace ? "namespace" : "dict";
    case Kind::kFunction: return "function";
  }
  return "value";
}

std::string a_kind(const Value& v) {
  if (v.is_none()) return "none";
  if (v.is_undefined()) return "an undefined value";
  std::string name = kind_name(v);
  return (name[0] == 'i' ? "an " : "a ") + name;
}

}  // namespace ogai::chat::jinja
