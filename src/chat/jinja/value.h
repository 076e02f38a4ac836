// Runtime values of the template engine. A Value is a 16-byte handle: scalars inline, strings as
// views, arrays/objects/functions as pointers into the render's Heap (or, for strings, into the
// parsed template and the caller's JSON), so every Value lives exactly as long as one render.
// Not thread-safe by themselves; each render owns its values.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace ogai::chat::jinja {

enum class Kind : std::uint8_t { kUndefined, kNone, kBool, kInt, kFloat, kString, kArray, kObject, kFunction };

struct ArrayData;
struct ObjectData;
struct Callable;

class Value {
 public:
  Value() : kind_(Kind::kUndefined), item_(false), len_(0), ptr_(nullptr) {}
  // `hint` names what is missing, for error messages: a variable or key name, or (item=true)
  // the decimal index of a missing list item.
  static Value undefined(std::string_view hint = {}, bool item = false) {
    Value v(Kind::kUndefined, hint);
    v.item_ = item;
    return v;
  }
  static Value none() { Value v; v.kind_ = Kind::kNone; return v; }
  static Value boolean(bool b) { Value v; v.kind_ = Kind::kBool; v.int_ = b; return v; }
  static Value integer(std::int64_t i) { Value v; v.kind_ = Kind::kInt; v.int_ = i; return v; }
  static Value floating(double f) { Value v; v.kind_ = Kind::kFloat; v.float_ = f; return v; }
  static Value string(std::string_view s) { return Value(Kind::kString, s); }
  static Value array(ArrayData* a) { Value v; v.kind_ = Kind::kArray; v.ptr_ = a; return v; }
  static Value object(ObjectData* o) { Value v; v.kind_ = Kind::kObject; v.ptr_ = o; return v; }
  static Value function(const Callable* f) { Value v; v.kind_ = Kind::kFunction; v.ptr_ = f; return v; }
  // A JavaScript number: integral values become kInt (as @huggingface/jinja's inputs do).
  static Value number(double d);

  Kind kind() const { return kind_; }
  bool is(Kind k) const { return kind_ == k; }
  bool is_undefined() const { return kind_ == Kind::kUndefined; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_numeric() const { return kind_ == Kind::kInt || kind_ == Kind::kFloat; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool as_bool() const { return int_ != 0; }
  std::int64_t as_int() const { return int_; }
  double as_float() const { return float_; }
  double as_number() const { return kind_ == Kind::kFloat ? float_ : static_cast<double>(int_); }
  std::string_view as_string() const { return {static_cast<const char*>(ptr_), len_}; }
  std::string_view undefined_hint() const { return as_string(); }
  bool undefined_item() const { return item_; }
  ArrayData& array() const { return *static_cast<ArrayData*>(const_cast<void*>(ptr_)); }
  ObjectData& object() const { return *static_cast<ObjectData*>(const_cast<void*>(ptr_)); }
  const Callable& function() const { return *static_cast<const Callable*>(ptr_); }
  const void* pointer() const { return ptr_; }

 private:
  Value(Kind k, std::string_view s) : kind_(k), item_(false), len_(static_cast<std::uint32_t>(s.size())), ptr_(s.data()) {}
  Kind kind_;
  bool item_;
  std::uint32_t len_;
  union {
    const void* ptr_;
    std::int64_t int_;
    double float_;
  };
};

struct ArrayData {
  explicit ArrayData(std::pmr::memory_resource* r) : items(r) {}
  std::pmr::vector<Value> items;
  bool tuple = false;
};

enum class ObjectType : std::uint8_t { kDict, kNamespace, kLoop };

struct Entry {
  std::string_view key;
  Value value;
};

// An insertion-ordered mapping with linear lookup (template objects are small).
struct ObjectData {
  explicit ObjectData(std::pmr::memory_resource* r, ObjectType t = ObjectType::kDict) : entries(r), type(t) {}
  const Value* find(std::string_view key) const;
  void set(std::string_view key, Value value);  // replaces in place or appends
  std::pmr::vector<Entry> entries;
  ObjectType type;
  std::int64_t loop_index = 0;  // kLoop: index0 of the iteration, for loop.cycle
};

// Truthiness as @huggingface/jinja defines it (empty arrays and objects are false, namespaces true).
bool truthy(const Value& v);
const char* kind_name(const Value& v);  // for error messages: "string", "list", "dict", ...
std::string a_kind(const Value& v);     // with an article: "a string", "an integer", "none"

}  // namespace ogai::chat::jinja
