// Parser: tokens -> Program. The grammar and operator precedence are @huggingface/jinja's (the
// differential oracle), including its looser spots (commas between list items are optional,
// `is` binds tighter than arithmetic), plus Jinja's test arguments (`x is divisibleby 3`,
// `x is eq(y)`). Throws SyntaxError with the offending token's position.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "chat/jinja/ast.h"
#include "chat/jinja/lexer.h"

namespace ogai::chat::jinja {

// Symbols every template knows, interned first so their ids are constants.
enum BuiltinSymbol : SymbolId {
  kSymLoop, kSymCaller, kSymVarargs, kSymKwargs, kSymRange, kSymNamespace, kSymDict, kSymRaiseException,
  kSymStrftimeNow, kSymTrue, kSymFalse, kSymNone, kSymTrueUpper, kSymFalseUpper, kSymNoneUpper, kBuiltinSymbolCount,
};

// Parses the whole template into `program` (whose `source` is already set).
void parse_program(std::vector<Token> tokens, Program& program);

class Parser {
 public:
  Parser(std::vector<Token> tokens, Program& program);
  void run();

  // Expressions (parser_expr.cc).
  ExprPtr expression();
  ExprPtr expression_sequence(bool primary_only = false);
  ExprPtr primary();
  std::vector<Arg> call_args(bool parameters = false);
  std::vector<Param> params();

 private:
  const Token& tok(std::size_t ahead = 0) const;
  bool is(Tok t, std::size_t ahead = 0) const { return tok(ahead).type == t; }
  bool is_name(std::string_view n, std::size_t ahead = 0) const { return is(Tok::kName, ahead) && tok(ahead).text == n; }
  bool is_statement(std::initializer_list<std::string_view> names) const;
  const Token& take() { return tokens_[cur_ < tokens_.size() - 1 ? cur_++ : cur_]; }
  void expect(Tok t, const char* context);
  void expect_name(std::string_view name, const char* context);
  [[noreturn]] void fail(const Token& at, const std::string& message) const;
  std::string describe(const Token& t) const;
  SymbolId intern(const std::string& name);
  void enter(const Token& at);
  void leave() { --depth_; }

  std::unique_ptr<Stmt> any();
  std::unique_ptr<Stmt> statement();
  Body body_until(std::initializer_list<std::string_view> enders, const Token& opener);
  void close_block(std::string_view ender);
  std::unique_ptr<Stmt> set_statement(const Token& at);
  std::unique_ptr<Stmt> if_statement(const Token& at);
  std::unique_ptr<Stmt> for_statement(const Token& at);
  std::unique_ptr<Stmt> macro_statement(const Token& at);
  std::unique_ptr<Stmt> call_block(const Token& at);
  std::unique_ptr<Stmt> filter_block(const Token& at);
  Target target(const Expr& e, const char* what);

  // Expression levels (parser_expr.cc).
  ExprPtr if_expression();
  ExprPtr or_expression();
  ExprPtr and_expression();
  ExprPtr not_expression();
  ExprPtr comparison();
  ExprPtr additive();
  ExprPtr multiplicative();
  ExprPtr power();
  ExprPtr test();
  ExprPtr filter();
  ExprPtr unary_sign();
  ExprPtr call_member();
  ExprPtr call(ExprPtr callee);
  ExprPtr member(ExprPtr object);
  ExprPtr subscript(ExprPtr object, const Token& at);
  ExprPtr name(const Token& t);
  ExprPtr list_literal(const Token& at);
  ExprPtr dict_literal(const Token& at);
  bool starts_test_argument() const;

  std::vector<Token> tokens_;
  std::size_t cur_ = 0;
  Program& program_;
  std::unordered_map<std::string, SymbolId>& ids_;
  std::vector<MacroStmt*> macros_;  // enclosing macro bodies, for varargs/kwargs use
  int depth_ = 0;
};

}  // namespace ogai::chat::jinja
