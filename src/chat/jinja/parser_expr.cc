// Expressions, lowest precedence first (as @huggingface/jinja parses them):
//   a if c else b  >  or  >  and  >  not  >  comparisons, in, not in  >  + - ~  >  * / // %
//   >  **  >  is tests  >  | filters  >  unary - +  >  calls, .attr, [index], [a:b:c]  >  atoms
#include <fmt/format.h>

#include <cstdlib>

#include "chat/jinja/parser.h"

namespace ogai::chat::jinja {
namespace {

BinaryOp binary_op(const std::string& t) {
  static const std::pair<const char*, BinaryOp> kOps[] = {
      {"==", BinaryOp::kEq}, {"!=", BinaryOp::kNe}, {"<", BinaryOp::kLt}, {">", BinaryOp::kGt},
      {"<=", BinaryOp::kLe}, {">=", BinaryOp::kGe}, {"+", BinaryOp::kAdd}, {"-", BinaryOp::kSub},
      {"~", BinaryOp::kConcat}, {"*", BinaryOp::kMul}, {"/", BinaryOp::kDiv}, {"//", BinaryOp::kFloorDiv},
      {"%", BinaryOp::kMod}, {"**", BinaryOp::kPow}};
  for (const auto& [text, op] : kOps)
    if (t == text) return op;
  return BinaryOp::kAdd;
}

ExprPtr number_literal(const Token& t) {
  if (t.text.find('.') != std::string::npos) return std::make_unique<Literal>(t.pos, Value::floating(std::strtod(t.text.c_str(), nullptr)));
  errno = 0;
  long long v = std::strtoll(t.text.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::make_unique<Literal>(t.pos, Value::floating(std::strtod(t.text.c_str(), nullptr)));
  return std::make_unique<Literal>(t.pos, Value::integer(v));
}

}  // namespace

ExprPtr Parser::expression() {
  enter(tok());
  ExprPtr e = if_expression();
  leave();
  return e;
}

ExprPtr Parser::if_expression() {
  ExprPtr a = or_expression();
  if (!is_name("if")) return a;
  const Token& at = take();
  ExprPtr cond = or_expression();
  ExprPtr otherwise;
  if (is_name("else")) {
    enter(take());  // `a if c else b if d else ...` nests one level per link
    otherwise = if_expression();
    leave();
  }
  return std::make_unique<Conditional>(at.pos, std::move(a), std::move(cond), std::move(otherwise));
}

ExprPtr Parser::or_expression() {
  ExprPtr left = and_expression();
  int chain = 0;
  while (is_name("or")) {
    enter(tok()), ++chain;
    const Token& at = take();
    left = std::make_unique<Binary>(at.pos, BinaryOp::kOr, std::move(left), and_expression());
  }
  depth_ -= chain;
  return left;
}

ExprPtr Parser::and_expression() {
  ExprPtr left = not_expression();
  int chain = 0;
  while (is_name("and")) {
    enter(tok()), ++chain;
    const Token& at = take();
    left = std::make_unique<Binary>(at.pos, BinaryOp::kAnd, std::move(left), not_expression());
  }
  depth_ -= chain;
  return left;
}

ExprPtr Parser::not_expression() {
  if (!is_name("not")) return comparison();
  const Token& at = take();
  enter(at);
  ExprPtr operand = not_expression();
  leave();
  return std::make_unique<Unary>(at.pos, UnaryOp::kNot, std::move(operand));
}

ExprPtr Parser::comparison() {
  ExprPtr left = additive();
  int chain = 0;
  while (true) {
    BinaryOp op;
    const Token& at = tok();
    if (is_name("not") && is_name("in", 1)) op = BinaryOp::kNotIn, take(), take();
    else if (is_name("in")) op = BinaryOp::kIn, take();
    else if (is(Tok::kComparison)) op = binary_op(take().text);
    else break;
    enter(at), ++chain;
    left = std::make_unique<Binary>(at.pos, op, std::move(left), additive());
  }
  depth_ -= chain;
  return left;
}

ExprPtr Parser::additive() {
  ExprPtr left = multiplicative();
  int chain = 0;
  while (is(Tok::kAdditive)) {
    enter(tok()), ++chain;
    const Token& at = take();
    left = std::make_unique<Binary>(at.pos, binary_op(at.text), std::move(left), multiplicative());
  }
  depth_ -= chain;
  return left;
}

ExprPtr Parser::multiplicative() {
  ExprPtr left = power();
  int chain = 0;
  while (is(Tok::kMultiplicative)) {
    enter(tok()), ++chain;
    const Token& at = take();
    left = std::make_unique<Binary>(at.pos, binary_op(at.text), std::move(left), power());
  }
  depth_ -= chain;
  return left;
}

ExprPtr Parser::power() {
  ExprPtr left = test();
  int chain = 0;
  while (is(Tok::kPower)) {
    enter(tok()), ++chain;
    const Token& at = take();
    left = std::make_unique<Binary>(at.pos, BinaryOp::kPow, std::move(left), test());
  }
  depth_ -= chain;
  return left;
}

// Jinja passes one argument without parentheses when the next token can start an operand.
bool Parser::starts_test_argument() const {
  if (is(Tok::kName)) {
    static const char* kStops[] = {"else", "or", "and", "if", "in", "not", "is"};
    for (const char* s : kStops)
      if (tok().text == s) return false;
    return true;
  }
  return is(Tok::kString) || is(Tok::kNumber) || is(Tok::kLBracket) || is(Tok::kLBrace);
}

ExprPtr Parser::test() {
  ExprPtr operand = filter();
  int chain = 0;
  while (is_name("is")) {
    enter(tok()), ++chain;
    const Token& at = take();
    bool negate = is_name("not");
    if (negate) take();
    if (!is(Tok::kName)) fail(tok(), fmt::format("expected a test name after 'is', got {}", describe(tok())));
    auto t = std::make_unique<TestExpr>(at.pos, std::move(operand), take().text, negate);
    if (is(Tok::kLParen)) t->args = call_args();
    else if (starts_test_argument()) t->args.push_back({ArgKind::kPositional, "", member(primary())});
    operand = std::move(t);
  }
  depth_ -= chain;
  return operand;
}

ExprPtr Parser::filter() {
  ExprPtr operand = unary_sign();
  int chain = 0;
  while (is(Tok::kPipe)) {
    enter(tok()), ++chain;
    take();
    if (!is(Tok::kName)) fail(tok(), fmt::format("expected a filter name after '|', got {}", describe(tok())));
    const Token& n = take();
    auto f = std::make_unique<FilterExpr>(n.pos, std::move(operand), n.text);
    if (is(Tok::kLParen)) {
      f->called = true;
      f->args = call_args();
    }
    operand = std::move(f);
  }
  depth_ -= chain;
  return operand;
}

ExprPtr Parser::unary_sign() {
  if ((is(Tok::kUnary) || is(Tok::kAdditive)) && (tok().text == "-" || tok().text == "+")) {
    const Token& at = take();
    enter(at);
    ExprPtr operand = unary_sign();
    leave();
    return std::make_unique<Unary>(at.pos, at.text == "-" ? UnaryOp::kNeg : UnaryOp::kPos, std::move(operand));
  }
  return call_member();
}

ExprPtr Parser::call_member() {
  ExprPtr m = member(primary());
  return is(Tok::kLParen) ? call(std::move(m)) : std::move(m);
}

ExprPtr Parser::call(ExprPtr callee) {
  enter(tok());
  std::uint32_t at = callee->pos;
  auto c = std::make_unique<Call>(at, std::move(callee));
  c->args = call_args();
  ExprPtr e = member(std::move(c));
  e = is(Tok::kLParen) ? call(std::move(e)) : std::move(e);
  leave();
  return e;
}

ExprPtr Parser::member(ExprPtr object) {
  int chain = 0;
  while (is(Tok::kDot) || is(Tok::kLBracket)) {
    enter(tok()), ++chain;
    const Token& at = take();
    if (at.type == Tok::kLBracket) {
      object = subscript(std::move(object), at);
      continue;
    }
    const Token& p = take();
    if (p.type != Tok::kName && !(p.type == Tok::kNumber && p.text.find('.') == std::string::npos && p.text[0] != '-' && p.text[0] != '+'))
      fail(p, fmt::format("expected a name or an integer after '.', got {}", describe(p)));
    auto a = std::make_unique<Attr>(at.pos, std::move(object), p.text);
    if (p.type == Tok::kNumber) a->integer = true, a->index = std::strtoll(p.text.c_str(), nullptr, 10);
    object = std::move(a);
  }
  depth_ -= chain;
  return object;
}

ExprPtr Parser::subscript(ExprPtr object, const Token& at) {
  std::vector<ExprPtr> parts;
  bool is_slice = false;
  while (!is(Tok::kRBracket)) {
    if (is(Tok::kColon)) {
      parts.push_back(nullptr);
      take();
      is_slice = true;
      continue;
    }
    parts.push_back(expression());
    if (is(Tok::kColon)) take(), is_slice = true;
    else if (!is(Tok::kRBracket)) fail(tok(), fmt::format("expected ':' or ']' in a subscript, got {}", describe(tok())));
  }
  if (parts.empty()) fail(tok(), "expected an index or a slice between '[' and ']'");
  take();
  if (!is_slice) return std::make_unique<Subscript>(at.pos, std::move(object), std::move(parts[0]));
  if (parts.size() > 3) fail(at, "a slice has at most three parts (start:stop:step)");
  auto s = std::make_unique<Slice>(at.pos, std::move(object));
  parts.resize(3);
  s->start = std::move(parts[0]);
  s->stop = std::move(parts[1]);
  s->step = std::move(parts[2]);
  return s;
}

ExprPtr Parser::name(const Token& t) {
  if (t.text == "varargs" || t.text == "kwargs")
    for (MacroStmt* m : macros_) (t.text == "varargs" ? m->uses_varargs : m->uses_kwargs) = true;
  return std::make_unique<Name>(t.pos, intern(t.text), t.text);
}

ExprPtr Parser::primary() {
  const Token& t = take();
  switch (t.type) {
    case Tok::kNumber: return number_literal(t);
    case Tok::kString: {
      std::string value = t.text;
      while (is(Tok::kString)) value += take().text;
      return std::make_unique<Literal>(t.pos, std::move(value));
    }
    case Tok::kName: return name(t);
    case Tok::kLParen: {
      enter(t);
      ExprPtr e = expression_sequence();
      leave();
      expect(Tok::kRParen, "to close '('");
      return e;
    }
    case Tok::kLBracket: return list_literal(t);
    case Tok::kLBrace: return dict_literal(t);
    default: fail(t, fmt::format("expected an expression, got {}", describe(t)));
  }
}

ExprPtr Parser::list_literal(const Token& at) {
  enter(at);
  auto list = std::make_unique<ListExpr>(at.pos, false);
  while (!is(Tok::kRBracket)) {
    list->items.push_back(expression());
    if (is(Tok::kComma)) take();  // @huggingface/jinja also accepts items without commas
  }
  take();
  leave();
  return list;
}

ExprPtr Parser::dict_literal(const Token& at) {
  enter(at);
  auto dict = std::make_unique<DictExpr>(at.pos);
  while (!is(Tok::kRBrace)) {
    ExprPtr key = expression();
    expect(Tok::kColon, "between a key and its value");
    dict->items.emplace_back(std::move(key), expression());
    if (is(Tok::kComma)) take();
  }
  take();
  leave();
  return dict;
}

ExprPtr Parser::expression_sequence(bool primary_only) {
  const Token& at = tok();
  ExprPtr first = primary_only ? primary() : expression();
  if (!is(Tok::kComma)) return first;
  auto tuple = std::make_unique<ListExpr>(at.pos, true);
  tuple->items.push_back(std::move(first));
  while (is(Tok::kComma)) {
    take();
    if (is(Tok::kRParen) || is(Tok::kCloseStmt) || is(Tok::kCloseExpr) || is(Tok::kEquals) || is_name("in")) break;
    tuple->items.push_back(primary_only ? primary() : expression());
  }
  return tuple;
}

std::vector<Arg> Parser::call_args(bool parameters) {
  expect(Tok::kLParen, "before the arguments");
  std::vector<Arg> args;
  bool keyword_seen = false, spread_seen = false;
  while (!is(Tok::kRParen)) {
    const Token& at = tok();
    if (is(Tok::kPower)) {
      take();
      args.push_back({ArgKind::kKeywordSpread, "", expression()});
      if (is(Tok::kComma)) take();
      if (!is(Tok::kRParen)) fail(tok(), "'**' must be applied to the last argument");
      break;
    }
    if (is(Tok::kMultiplicative) && tok().text == "*") {
      if (spread_seen) fail(at, "only one '*' argument unpacking is allowed");
      take();
      spread_seen = true;
      args.push_back({ArgKind::kSpread, "", expression()});
    } else {
      ExprPtr e = expression();
      if (is(Tok::kEquals)) {
        take();
        if (e->kind != ExprKind::kName) fail(at, "expected a name before '=' in a keyword argument");
        args.push_back({ArgKind::kKeyword, static_cast<Name&>(*e).name, expression()});
        keyword_seen = true;
      } else {
        if (keyword_seen)
          fail(at, parameters ? "a parameter without a default cannot follow one with a default"
                              : "positional arguments must come before keyword arguments");
        args.push_back({ArgKind::kPositional, "", std::move(e)});
      }
    }
    if (is(Tok::kComma)) take();
  }
  take();
  return args;
}

std::vector<Param> Parser::params() {
  std::vector<Arg> args = call_args(true);
  std::vector<Param> out;
  for (Arg& a : args) {
    if (a.kind == ArgKind::kSpread || a.kind == ArgKind::kKeywordSpread)
      fail(tok(), "argument unpacking is not allowed in parameter declarations");
    std::string n;
    if (a.kind == ArgKind::kKeyword) n = a.name;
    else if (a.value->kind == ExprKind::kName) n = static_cast<Name&>(*a.value).name;
    else fail(tok(), "expected a name for each parameter");
    for (const Param& p : out)
      if (p.name == n) fail(tok(), fmt::format("duplicate parameter '{}'", n));
    if (a.kind == ArgKind::kPositional && !out.empty() && out.back().default_value)
      fail(tok(), fmt::format("parameter '{}' without a default follows one with a default", n));
    out.push_back({intern(n), n, a.kind == ArgKind::kKeyword ? std::move(a.value) : nullptr});
  }
  return out;
}

}  // namespace ogai::chat::jinja
