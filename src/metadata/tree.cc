#include "metadata/tree.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cctype>
#include <stdexcept>

#include "base/error.h"
#include "metadata/tree_builder.h"

namespace ogai::metadata {

const Node* Node::find(std::string_view key) const {
  for (const auto& [k, v] : entries)
    if (k == key) return v.get();
  return nullptr;
}

const char* node_kind_name(Node::Kind kind) {
  switch (kind) {
    case Node::Kind::kNull: return "null";
    case Node::Kind::kBool: return "boolean";
    case Node::Kind::kInt: return "integer";
    case Node::Kind::kFloat: return "number";
    case Node::Kind::kString: return "string";
    case Node::Kind::kSeq: return "sequence";
    case Node::Kind::kMap: return "mapping";
  }
  return "value";
}

std::string node_preview(const Node& node) {
  if (node.kind == Node::Kind::kSeq) return "[...]";
  if (node.kind == Node::Kind::kMap) return "{...}";
  if (node.kind == Node::Kind::kNull) return "null";
  std::string text = node.text.size() > 60 ? node.text.substr(0, 57) + "..." : node.text;
  return node.kind == Node::Kind::kString ? "'" + text + "'" : text;
}

namespace {

// Length of the UTF-8 sequence starting at text[i], or 0 when it is malformed (overlong forms,
// surrogates and code points above U+10FFFF included).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  std::uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static const std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string_view check_text(std::string_view text, const std::string& origin, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    fail(ErrorCode::kParse, origin, "document is {} bytes; the limit is {} bytes", text.size(), max_bytes);
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"))
    fail(ErrorCode::kParse, origin, "document is UTF-16; expected UTF-8 text");
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = utf8_length(text, i);
    if (n == 0)
      fail(ErrorCode::kParse, origin, "invalid UTF-8 byte 0x{:02X} at byte offset {}; expected UTF-8 text",
           static_cast<unsigned char>(text[i]), i);
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (n == 1 && (c < 0x20 || c == 0x7F) && c != '\t' && c != '\n' && c != '\r')
      fail(ErrorCode::kParse, origin, "control character 0x{:02X} at byte offset {}; expected text", c, i);
    i += n;
  }
  return text;
}

namespace detail {

std::shared_ptr<Node> string_node(const std::string& text) {
  auto node = std::make_shared<Node>();
  node->kind = Node::Kind::kString;
  node->text = text;
  return node;
}

namespace {

bool all_of(std::string_view s, int (*pred)(int)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(static_cast<unsigned char>(c))) return false;
  return true;
}

int is_octal(int c) { return c >= '0' && c <= '7'; }

// YAML 1.2 core schema integers: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+.
bool parse_integer(const std::string& text, std::int64_t& out) {
  std::string_view t = text;
  int base = 10;
  if (t.starts_with("0o") && all_of(t.substr(2), is_octal)) base = 8;
  else if (t.starts_with("0x") && all_of(t.substr(2), ::isxdigit)) base = 16;
  else if (!all_of(t[0] == '-' || t[0] == '+' ? t.substr(1) : t, ::isdigit)) return false;
  const char* start = text.c_str() + (base == 10 ? 0 : 2);
  errno = 0;
  long long value = std::strtoll(start, nullptr, base);
  if (errno == ERANGE) throw std::out_of_range(text);
  out = value;
  return true;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, plus .inf/.nan spellings.
bool is_decimal_float(std::string_view t) {
  std::size_t i = t.size() && (t[0] == '-' || t[0] == '+') ? 1 : 0;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++int_digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    std::size_t exp_digits = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == t.size();
}

bool parse_float(const std::string& text, double& out) {
  std::string_view t = text;
  std::string_view unsigned_t = t.size() && (t[0] == '-' || t[0] == '+') ? t.substr(1) : t;
  if (is_decimal_float(t)) {
    out = std::strtod(text.c_str(), nullptr);
    return true;
  }
  if (unsigned_t == ".inf" || unsigned_t == ".Inf" || unsigned_t == ".INF") {
    out = t[0] == '-' ? -INFINITY : INFINITY;
    return true;
  }
  if (t == ".nan" || t == ".NaN" || t == ".NAN") {
    out = NAN;
    return true;
  }
  return false;
}

}  // namespace

std::shared_ptr<Node> resolve_plain_scalar(const std::string& text) {
  auto node = string_node(text);
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    node->kind = Node::Kind::kNull;
  } else if (text == "true" || text == "True" || text == "TRUE" || text == "false" ||
             text == "False" || text == "FALSE") {
    node->kind = Node::Kind::kBool;
    node->boolean = text[0] == 't' || text[0] == 'T';
  } else if (parse_integer(text, node->integer)) {
    node->kind = Node::Kind::kInt;
    node->number = static_cast<double>(node->integer);
  } else if (parse_float(text, node->number)) {
    node->kind = Node::Kind::kFloat;
  }
  return node;
}

}  // namespace detail
}  // namespace ogai::metadata
