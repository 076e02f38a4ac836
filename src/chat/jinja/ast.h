// The syntax tree of a parsed template. Immutable after parsing and shared by every render.
// Nodes carry `pos`, a byte offset in the original template, for error messages. Identifiers are
// interned into SymbolIds (see symbols.h) so scopes compare integers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "chat/jinja/value.h"

namespace ogai::chat::jinja {

using SymbolId = std::uint32_t;

enum class ExprKind : std::uint8_t {
  kLiteral, kName, kAttr, kSubscript, kSlice, kCall, kFilter, kTest, kUnary, kBinary,
  kConditional, kList, kDict,
};

struct Expr {
  Expr(ExprKind k, std::uint32_t p) : kind(k), pos(p) {}
  virtual ~Expr() = default;
  ExprKind kind;
  std::uint32_t pos;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Literal : Expr {
  Literal(std::uint32_t p, Value v) : Expr(ExprKind::kLiteral, p), value(v) {}
  Literal(std::uint32_t p, std::string s) : Expr(ExprKind::kLiteral, p), text(std::move(s)) { value = Value::string(text); }
  Literal(const Literal&) = delete;
  Value value;
  std::string text;  // storage of a string literal; `value` views it
};

struct Name : Expr {
  Name(std::uint32_t p, SymbolId i, std::string n) : Expr(ExprKind::kName, p), id(i), name(std::move(n)) {}
  SymbolId id;
  std::string name;
};

// `obj.name` or `obj.0` (integer attribute).
struct Attr : Expr {
  Attr(std::uint32_t p, ExprPtr o, std::string n) : Expr(ExprKind::kAttr, p), object(std::move(o)), name(std::move(n)) {}
  ExprPtr object;
  std::string name;
  bool integer = false;
  std::int64_t index = 0;
};

struct Subscript : Expr {
  Subscript(std::uint32_t p, ExprPtr o, ExprPtr i) : Expr(ExprKind::kSubscript, p), object(std::move(o)), index(std::move(i)) {}
  ExprPtr object, index;
};

struct Slice : Expr {
  Slice(std::uint32_t p, ExprPtr o) : Expr(ExprKind::kSlice, p), object(std::move(o)) {}
  ExprPtr object, start, stop, step;  // any may be null
};

enum class ArgKind : std::uint8_t { kPositional, kKeyword, kSpread, kKeywordSpread };
struct Arg {
  ArgKind kind;
  std::string name;  // kKeyword
  ExprPtr value;
};

struct Call : Expr {
  Call(std::uint32_t p, ExprPtr c) : Expr(ExprKind::kCall, p), callee(std::move(c)) {}
  ExprPtr callee;
  std::vector<Arg> args;
};

// `operand | name` or `operand | name(args)`; `called` tells the two apart (they differ).
struct FilterExpr : Expr {
  FilterExpr(std::uint32_t p, ExprPtr o, std::string n) : Expr(ExprKind::kFilter, p), operand(std::move(o)), name(std::move(n)) {}
  ExprPtr operand;  // null in a {% filter %} block
  std::string name;
  bool called = false;
  std::vector<Arg> args;
};

// `operand is [not] name [arg]` or `... name(args)`.
struct TestExpr : Expr {
  TestExpr(std::uint32_t p, ExprPtr o, std::string n, bool neg)
      : Expr(ExprKind::kTest, p), operand(std::move(o)), name(std::move(n)), negate(neg) {}
  ExprPtr operand;
  std::string name;
  bool negate;
  std::vector<Arg> args;
};

enum class UnaryOp : std::uint8_t { kNot, kNeg, kPos };
struct Unary : Expr {
  Unary(std::uint32_t p, UnaryOp o, ExprPtr a) : Expr(ExprKind::kUnary, p), op(o), operand(std::move(a)) {}
  UnaryOp op;
  ExprPtr operand;
};

enum class BinaryOp : std::uint8_t {
  kAnd, kOr, kEq, kNe, kLt, kGt, kLe, kGe, kIn, kNotIn, kAdd, kSub, kConcat, kMul, kDiv, kFloorDiv, kMod, kPow,
};
struct Binary : Expr {
  Binary(std::uint32_t p, BinaryOp o, ExprPtr l, ExprPtr r)
      : Expr(ExprKind::kBinary, p), op(o), left(std::move(l)), right(std::move(r)) {}
  BinaryOp op;
  ExprPtr left, right;
};

// `then if cond else otherwise`; without `else`, otherwise is null and the value is undefined.
struct Conditional : Expr {
  Conditional(std::uint32_t p, ExprPtr t, ExprPtr c, ExprPtr o)
      : Expr(ExprKind::kConditional, p), then(std::move(t)), cond(std::move(c)), otherwise(std::move(o)) {}
  ExprPtr then, cond, otherwise;
};

struct ListExpr : Expr {
  ListExpr(std::uint32_t p, bool t) : Expr(ExprKind::kList, p), tuple(t) {}
  bool tuple;
  std::vector<ExprPtr> items;
};

struct DictExpr : Expr {
  explicit DictExpr(std::uint32_t p) : Expr(ExprKind::kDict, p) {}
  std::vector<std::pair<ExprPtr, ExprPtr>> items;
};

// ---- statements ----

enum class StmtKind : std::uint8_t { kText, kOutput, kIf, kFor, kSet, kMacro, kCallBlock, kFilterBlock, kBreak, kContinue };

struct Stmt {
  Stmt(StmtKind k, std::uint32_t p) : kind(k), pos(p) {}
  virtual ~Stmt() = default;
  StmtKind kind;
  std::uint32_t pos;
};
using Body = std::vector<std::unique_ptr<Stmt>>;

struct TextStmt : Stmt {
  TextStmt(std::uint32_t p, std::string t) : Stmt(StmtKind::kText, p), text(std::move(t)) {}
  std::string text;
};

struct OutputStmt : Stmt {
  OutputStmt(std::uint32_t p, ExprPtr e) : Stmt(StmtKind::kOutput, p), expr(std::move(e)) {}
  ExprPtr expr;
};

struct IfStmt : Stmt {
  IfStmt(std::uint32_t p, ExprPtr c) : Stmt(StmtKind::kIf, p), cond(std::move(c)) {}
  ExprPtr cond;
  Body then, otherwise;
};

// A loop or assignment target: one name, or a tuple of names (`a, b`).
struct Target {
  std::vector<SymbolId> names;
  bool unpack = false;
  std::string invalid;  // non-empty: what is wrong, reported when the statement runs
};

struct ForStmt : Stmt {
  explicit ForStmt(std::uint32_t p) : Stmt(StmtKind::kFor, p) {}
  Target target;
  ExprPtr iterable;
  ExprPtr filter;  // `for x in xs if cond`
  Body body, otherwise;
};

struct SetStmt : Stmt {
  explicit SetStmt(std::uint32_t p) : Stmt(StmtKind::kSet, p) {}
  Target target;
  ExprPtr object;     // `set ns.attr = ...`: the namespace expression
  std::string attr;   //                      and the attribute
  ExprPtr value;      // null: a block set, whose value is the rendered body
  Body body;
};

struct Param {
  SymbolId id;
  std::string name;
  ExprPtr default_value;  // may be null
};

struct MacroStmt : Stmt {
  explicit MacroStmt(std::uint32_t p) : Stmt(StmtKind::kMacro, p) {}
  SymbolId id = 0;
  std::string name;
  std::vector<Param> params;
  bool uses_varargs = false, uses_kwargs = false;
  Body body;
};

// `{% call(params) macro(args) %}body{% endcall %}`: `body` is the macro's `caller()`.
struct CallBlockStmt : Stmt {
  explicit CallBlockStmt(std::uint32_t p) : Stmt(StmtKind::kCallBlock, p) {}
  std::unique_ptr<Call> call;
  MacroStmt caller{0};  // the caller's params and body
};

struct FilterBlockStmt : Stmt {
  explicit FilterBlockStmt(std::uint32_t p) : Stmt(StmtKind::kFilterBlock, p) {}
  std::unique_ptr<FilterExpr> filter;  // operand is null
  Body body;
};

struct Program {
  std::string source;  // the original template, for line:column
  Body body;
  std::vector<std::string> symbols;                        // SymbolId -> name
  std::unordered_map<std::string, SymbolId> symbol_ids;  // name -> SymbolId
};

}  // namespace ogai::chat::jinja
