// Lexer: template text -> tokens, with HF's environment settings (trim_blocks and lstrip_blocks on,
// one trailing newline dropped, `{% generation %}` markers removed) applied the way
// @huggingface/jinja applies them: as text rewrites before tokenizing. Every token keeps its
// offset in the original text so errors can name line:column. Adds Jinja's `{% raw %}` blocks.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::chat::jinja {

enum class Tok : std::uint8_t {
  kText, kNumber, kString, kName, kEquals, kLParen, kRParen, kOpenStmt, kCloseStmt, kOpenExpr,
  kCloseExpr, kLBracket, kRBracket, kLBrace, kRBrace, kComma, kDot, kColon, kPipe,
  kAdditive,        // + - ~
  kMultiplicative,  // * / // %
  kPower,           // **
  kComparison,      // < > <= >= == !=
  kUnary,           // a sign that does not follow an operand
  kComment, kEnd,
};

struct Token {
  Tok type;
  std::string text;  // decoded for strings; the raw spelling otherwise
  std::uint32_t pos;  // byte offset in the original template
};

// A syntax error found by the lexer or parser, at a byte offset of the original template.
struct SyntaxError {
  std::uint32_t pos;
  std::string message;
};

// The template after HF's whitespace settings, with the original offset of every byte.
struct Preprocessed {
  std::string text;
  std::vector<std::uint32_t> origin;  // origin[i]: offset in the original of text[i]; one extra at the end
};

Preprocessed preprocess(std::string_view original);
std::vector<Token> tokenize(const Preprocessed& source);  // ends with a kEnd token
const char* token_name(Tok type);

// 1-based line and column (in characters) of a byte offset.
std::pair<int, int> line_column(std::string_view text, std::uint32_t pos);

}  // namespace ogai::chat::jinja
