// Statements: {% set %}, {% if %}, {% for %}, {% macro %}, {% call %}, {% filter %},
// {% break %}, {% continue %}, plus text, comments and {{ expressions }}.
#include "chat/jinja/parser.h"

#include <fmt/format.h>

namespace ogai::chat::jinja {
namespace {

constexpr int kMaxNesting = 200;
constexpr const char* kBuiltinNames[kBuiltinSymbolCount] = {
    "loop", "caller", "varargs", "kwargs", "range", "namespace", "dict", "raise_exception",
    "strftime_now", "true", "false", "none", "True", "False", "None"};

}  // namespace

void parse_program(std::vector<Token> tokens, Program& program) {
  Parser(std::move(tokens), program).run();
}

Parser::Parser(std::vector<Token> tokens, Program& program)
    : tokens_(std::move(tokens)), program_(program), ids_(program.symbol_ids) {
  for (const char* n : kBuiltinNames) intern(n);
}

void Parser::run() {
  while (!is(Tok::kEnd))
    if (auto s = any()) program_.body.push_back(std::move(s));
}

const Token& Parser::tok(std::size_t ahead) const {
  return tokens_[std::min(cur_ + ahead, tokens_.size() - 1)];
}

bool Parser::is_statement(std::initializer_list<std::string_view> names) const {
  if (!is(Tok::kOpenStmt) || !is(Tok::kName, 1)) return false;
  for (std::string_view n : names)
    if (tok(1).text == n) return true;
  return false;
}

std::string Parser::describe(const Token& t) const {
  switch (t.type) {
    case Tok::kName: return fmt::format("'{}'", t.text);
    case Tok::kString: return fmt::format("string '{}'", t.text);
    case Tok::kNumber: return fmt::format("number {}", t.text);
    case Tok::kText: return "text";
    case Tok::kComment: return "a comment";
    case Tok::kEnd: return "end of template";
    default: return fmt::format("'{}'", t.text);
  }
}

void Parser::fail(const Token& at, const std::string& message) const { throw SyntaxError{at.pos, message}; }

void Parser::expect(Tok t, const char* context) {
  if (!is(t)) {
    const char* want = t == Tok::kCloseStmt ? "'%}'" : t == Tok::kCloseExpr ? "'}}'" : t == Tok::kRParen ? "')'"
                       : t == Tok::kRBracket ? "']'" : t == Tok::kColon ? "':'" : t == Tok::kOpenStmt ? "'{%'" : token_name(t);
    fail(tok(), fmt::format("expected {} {}, got {}", want, context, describe(tok())));
  }
  take();
}

void Parser::expect_name(std::string_view name, const char* context) {
  if (!is_name(name)) fail(tok(), fmt::format("expected '{}' {}, got {}", name, context, describe(tok())));
  take();
}

SymbolId Parser::intern(const std::string& name) {
  auto [it, added] = ids_.try_emplace(name, static_cast<SymbolId>(program_.symbols.size()));
  if (added) program_.symbols.push_back(name);
  return it->second;
}

void Parser::enter(const Token& at) {
  if (++depth_ > kMaxNesting) fail(at, fmt::format("template nested more than {} levels deep", kMaxNesting));
}

std::unique_ptr<Stmt> Parser::any() {
  const Token& t = tok();
  switch (t.type) {
    case Tok::kComment: take(); return nullptr;
    case Tok::kText: take(); return std::make_unique<TextStmt>(t.pos, t.text);
    case Tok::kOpenStmt: return statement();
    case Tok::kOpenExpr: {
      take();
      auto out = std::make_unique<OutputStmt>(t.pos, expression());
      expect(Tok::kCloseExpr, "to close '{{'");
      return out;
    }
    default: fail(t, fmt::format("unexpected {}", describe(t)));
  }
}

std::unique_ptr<Stmt> Parser::statement() {
  const Token& open = take();
  if (!is(Tok::kName)) fail(tok(), fmt::format("expected a statement name after '{{%', got {}", describe(tok())));
  const Token& word = take();
  enter(open);
  std::unique_ptr<Stmt> s;
  const std::string& w = word.text;
  if (w == "set") s = set_statement(open);
  else if (w == "if") s = if_statement(open), close_block("endif");
  else if (w == "for") s = for_statement(open);
  else if (w == "macro") s = macro_statement(open);
  else if (w == "call") s = call_block(open);
  else if (w == "filter") s = filter_block(open);
  else if (w == "break" || w == "continue") {
    expect(Tok::kCloseStmt, fmt::format("after '{}'", w).c_str());
    s = std::make_unique<Stmt>(w == "break" ? StmtKind::kBreak : StmtKind::kContinue, open.pos);
  } else if (w.starts_with("end") || w == "else" || w == "elif") {
    fail(word, fmt::format("unexpected '{{% {} %}}' with no open block it could close", w));
  } else {
    fail(word, fmt::format("unknown or unsupported statement '{}'", w));
  }
  leave();
  return s;
}

Body Parser::body_until(std::initializer_list<std::string_view> enders, const Token& opener) {
  Body body;
  while (!is_statement(enders)) {
    if (is(Tok::kEnd)) {
      const Token& keyword = tokens_[static_cast<std::size_t>(&opener - tokens_.data()) + 1];
      auto [line, column] = line_column(program_.source, opener.pos);
      std::string_view closer = *enders.begin();
      for (std::string_view e : enders)
        if (e.starts_with("end")) closer = e;
      fail(tok(), fmt::format("unexpected end of template: '{{% {} %}}' at line {}:{} is not closed with '{{% {} %}}'",
                              keyword.text, line, column, closer));
    }
    if (auto s = any()) body.push_back(std::move(s));
  }
  return body;
}

void Parser::close_block(std::string_view ender) {
  std::string context = fmt::format("to close the block with '{{% {} %}}'", ender);
  expect(Tok::kOpenStmt, context.c_str());
  expect_name(ender, context.c_str());
  expect(Tok::kCloseStmt, fmt::format("after '{}'", ender).c_str());
}

Target Parser::target(const Expr& e, const char* what) {
  Target t;
  if (e.kind == ExprKind::kName) {
    t.names.push_back(static_cast<const Name&>(e).id);
    return t;
  }
  t.unpack = true;
  if (e.kind != ExprKind::kList || !static_cast<const ListExpr&>(e).tuple) {
    t.invalid = fmt::format("cannot assign to this expression in {}", what);
    return t;
  }
  for (const auto& item : static_cast<const ListExpr&>(e).items) {
    if (item->kind == ExprKind::kName) t.names.push_back(static_cast<const Name&>(*item).id);
    else t.invalid = fmt::format("cannot unpack into a non-name in {}", what);
  }
  return t;
}

std::unique_ptr<Stmt> Parser::set_statement(const Token& at) {
  auto s = std::make_unique<SetStmt>(at.pos);
  ExprPtr left = expression_sequence();
  if (left->kind == ExprKind::kAttr && !static_cast<Attr&>(*left).integer) {
    auto& attr = static_cast<Attr&>(*left);
    s->object = std::move(attr.object);
    s->attr = attr.name;
  } else {
    s->target = target(*left, "'set'");
  }
  if (is(Tok::kEquals)) {
    take();
    s->value = expression_sequence();
  } else {
    expect(Tok::kCloseStmt, "or '=' after the 'set' target");
    s->body = body_until({"endset"}, at);
    take();
    take();
  }
  expect(Tok::kCloseStmt, "to close 'set'");
  return s;
}

std::unique_ptr<Stmt> Parser::if_statement(const Token& at) {
  auto s = std::make_unique<IfStmt>(at.pos, expression());
  expect(Tok::kCloseStmt, "after the 'if' condition");
  s->then = body_until({"elif", "else", "endif"}, at);
  if (is_statement({"elif"})) {
    const Token& elif = take();
    take();
    enter(elif);
    s->otherwise.push_back(if_statement(elif));
    leave();
  } else if (is_statement({"else"})) {
    take();
    take();
    expect(Tok::kCloseStmt, "after 'else'");
    s->otherwise = body_until({"endif"}, at);
  }
  return s;
}

std::unique_ptr<Stmt> Parser::for_statement(const Token& at) {
  auto s = std::make_unique<ForStmt>(at.pos);
  const Token& first = tok();
  ExprPtr var = expression_sequence(true);
  if (var->kind != ExprKind::kName && !(var->kind == ExprKind::kList && static_cast<ListExpr&>(*var).tuple))
    fail(first, "expected a name or names for the loop variable");
  s->target = target(*var, "'for'");
  expect_name("in", "after the loop variable");
  s->iterable = expression();
  if (s->iterable->kind == ExprKind::kConditional && !static_cast<Conditional&>(*s->iterable).otherwise) {
    auto& select = static_cast<Conditional&>(*s->iterable);
    s->filter = std::move(select.cond);
    s->iterable = std::move(select.then);
  }
  expect(Tok::kCloseStmt, "after the 'for' iterable");
  s->body = body_until({"endfor", "else"}, at);
  if (is_statement({"else"})) {
    take();
    take();
    expect(Tok::kCloseStmt, "after 'else'");
    s->otherwise = body_until({"endfor"}, at);
  }
  close_block("endfor");
  return s;
}

std::unique_ptr<Stmt> Parser::macro_statement(const Token& at) {
  auto s = std::make_unique<MacroStmt>(at.pos);
  if (!is(Tok::kName)) fail(tok(), fmt::format("expected the macro's name, got {}", describe(tok())));
  s->name = take().text;
  s->id = intern(s->name);
  s->params = params();
  expect(Tok::kCloseStmt, "after the macro's parameters");
  macros_.push_back(s.get());
  s->body = body_until({"endmacro"}, at);
  macros_.pop_back();
  for (const Param& p : s->params) {
    if (p.name == "varargs") s->uses_varargs = false;
    if (p.name == "kwargs") s->uses_kwargs = false;
  }
  close_block("endmacro");
  return s;
}

std::unique_ptr<Stmt> Parser::call_block(const Token& at) {
  auto s = std::make_unique<CallBlockStmt>(at.pos);
  if (is(Tok::kLParen)) s->caller.params = params();
  const Token& callee = tok();
  if (!is(Tok::kName)) fail(callee, "expected a macro name after 'call'");
  auto call = std::make_unique<Call>(callee.pos, name(take()));
  call->args = call_args();
  s->call = std::move(call);
  expect(Tok::kCloseStmt, "after the 'call' expression");
  macros_.push_back(&s->caller);
  s->caller.body = body_until({"endcall"}, at);
  macros_.pop_back();
  for (const Param& p : s->caller.params) {
    if (p.name == "varargs") s->caller.uses_varargs = false;
    if (p.name == "kwargs") s->caller.uses_kwargs = false;
  }
  close_block("endcall");
  return s;
}

std::unique_ptr<Stmt> Parser::filter_block(const Token& at) {
  auto s = std::make_unique<FilterBlockStmt>(at.pos);
  if (!is(Tok::kName)) fail(tok(), fmt::format("expected a filter name, got {}", describe(tok())));
  const Token& n = take();
  s->filter = std::make_unique<FilterExpr>(n.pos, nullptr, n.text);
  if (is(Tok::kLParen)) {
    s->filter->called = true;
    s->filter->args = call_args();
  }
  expect(Tok::kCloseStmt, "after the filter");
  s->body = body_until({"endfilter"}, at);
  close_block("endfilter");
  return s;
}

}  // namespace ogai::chat::jinja
