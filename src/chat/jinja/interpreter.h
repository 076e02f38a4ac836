// Renderer: evaluates a parsed Program once. All values of the render live in its Heap and die
// with it; the Program is only read, so any number of Renderers may run on one Program at once.
// Scoping follows @huggingface/jinja: a `for` loop and a macro call open a scope, `if` does not;
// macros see the scope they are called from. Enforces the limits in RenderLimits.
#pragma once

#include <cstdint>
#include <ctime>
#include <memory_resource>
#include <string>
#include <string_view>

#include "chat/jinja/ast.h"
#include "chat/jinja/heap.h"
#include "chat/jinja/value.h"

namespace ogai::chat::jinja {

struct Limits {
  std::size_t max_output_bytes;
  std::size_t max_memory_bytes;
  std::uint64_t max_loop_iterations;
  int max_depth;
};

struct Scope {
  Scope(Scope* p, std::pmr::memory_resource* r) : parent(p), vars(r) {}
  const Value* find_local(SymbolId id) const;
  void set(SymbolId id, Value v);
  Scope* parent;
  std::pmr::vector<std::pair<SymbolId, Value>> vars;
};

struct Callable {
  enum class Type : std::uint8_t { kBuiltin, kMacro, kCaller, kMethod };
  static Callable builtin_function(SymbolId id) { return {Type::kBuiltin, id, nullptr, nullptr, Value(), {}}; }
  static Callable macro_function(const MacroStmt* m) { return {Type::kMacro, 0, m, nullptr, Value(), {}}; }
  static Callable caller_function(const MacroStmt* m, Scope* s) { return {Type::kCaller, 0, m, s, Value(), {}}; }
  static Callable bound_method(Value self, std::string_view name) { return {Type::kMethod, 0, nullptr, nullptr, self, name}; }
  Type type;
  SymbolId builtin = 0;              // kBuiltin: range, namespace, dict, raise_exception, strftime_now
  const MacroStmt* macro = nullptr;  // kMacro, kCaller
  Scope* scope = nullptr;            // kCaller: the scope the call block ran in
  Value self;                        // kMethod: the receiver
  std::string_view method;           // kMethod: its name
};

// Evaluated call arguments.
struct Args {
  explicit Args(std::pmr::memory_resource* r) : positional(r), keyword(r) {}
  const Value* keyword_arg(std::string_view name) const;
  // Positional argument i, else keyword `name`, else null.
  const Value* get(std::size_t i, std::string_view name = {}) const;
  std::pmr::vector<Value> positional;
  std::pmr::vector<Entry> keyword;
};

enum class Flow : std::uint8_t { kNormal, kBreak, kContinue };

class Renderer {
 public:
  Renderer(const Program& program, const Limits& limits, std::time_t now, std::string& out);

  // Renders the program with `root` (holding the caller's variables) as the outermost scope.
  void run(Scope* root);

  Heap& heap() { return heap_; }
  Scope* new_scope(Scope* parent) { return heap_.make<Scope>(parent, heap_.resource()); }
  ArrayData* new_array() { return heap_.make<ArrayData>(heap_.resource()); }
  ObjectData* new_object(ObjectType t = ObjectType::kDict) { return heap_.make<ObjectData>(heap_.resource(), t); }
  Value string(std::string_view s);  // copies into the heap (checks the string-size limit)
  Value concat(std::string_view a, std::string_view b);
  Args new_args() { return Args(heap_.resource()); }
  std::time_t now() const { return now_; }
  std::size_t max_bytes() const { return limits_.max_output_bytes; }  // for text built from values
  void count_iterations(std::uint64_t n);

  // Entry points shared with filters, tests and methods.
  Value call(const Value& fn, const Args& args, Scope* scope);
  Value filter(std::string_view name, const Value& operand, const Args* args, Scope* scope);
  bool test(std::string_view name, const Value& operand, const Args& args);
  std::uint32_t position() const { return pos_; }

 private:
  Flow exec(const Body& body, Scope* scope);
  Flow exec_stmt(const Stmt& s, Scope* scope);
  Flow exec_for(const ForStmt& f, Scope* scope);
  void exec_set(const SetStmt& s, Scope* scope);
  void exec_call_block(const CallBlockStmt& c, Scope* scope);
  void bind(const Target& t, const Value& v, Scope* scope, const char* what);
  Value capture(const Body& body, Scope* scope);
  Value call_macro(const MacroStmt& m, Scope* parent, const Args& args, std::string_view display);

  Value eval(const Expr& e, Scope* scope);
  Value eval_name(const Name& n, Scope* scope);
  Value eval_call(const Call& c, Scope* scope);
  Value eval_binary(const Binary& b, Scope* scope);
  Value eval_unary(const Unary& u, Scope* scope);
  Value eval_slice(const Slice& s, Scope* scope);
  Value eval_list(const ListExpr& l, Scope* scope);
  Value eval_dict(const DictExpr& d, Scope* scope);
  Args eval_args(const std::vector<Arg>& args, Scope* scope);
  Value member(const Value& object, const Value& property);

  const Program& program_;
  Limits limits_;
  std::time_t now_;
  Heap heap_;
  std::string& out_;
  std::uint64_t iterations_ = 0;
  int depth_ = 0;
  std::uint32_t pos_ = 0;
};

// "'name'" or "item 3", for messages about an undefined value (evaluate.cc).
std::string describe_undefined(const Value& v);

// Operators (operators.cc).
bool strict_equal(const Value& a, const Value& b);  // JavaScript ===, used by `in` and unique
bool loose_equal(const Value& a, const Value& b, std::size_t max_bytes);  // JavaScript ==, used by == and !=
// Orders two values for sort/dictsort; throws TemplateFailure for values of different types.
int compare_values(const Value& a, const Value& b, bool case_sensitive);
Value binary_operation(Renderer& r, BinaryOp op, const Value& left, const Value& right);
const char* op_text(BinaryOp op);

// Builtin global functions (globals.cc) and methods on strings and dicts (methods.cc).
Value builtin_value(SymbolId id);  // the value of a builtin global, or undefined
Value call_builtin(Renderer& r, SymbolId id, const Args& args);
bool has_method(const Value& self, std::string_view name);
Value call_method(Renderer& r, const Value& self, std::string_view name, const Args& args);

}  // namespace ogai::chat::jinja
