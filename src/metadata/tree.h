// A generic, immutable document tree read from YAML or JSON text.
//
// parse_yaml() / parse_json() turn metadata text into Nodes before any typed reading happens, so
// every format-level hazard is handled in one place:
//   - bytes must be UTF-8 (a UTF-8 BOM is skipped); NUL and other C0 controls except tab, LF and
//     CR are refused;
//   - duplicate mapping keys are refused (yaml-cpp and nlohmann would silently keep one);
//   - nesting depth, node count (aliases counted as expanded) and text size are bounded, so a
//     hostile document cannot exhaust the stack or memory ("billion laughs");
//   - one document per file; YAML tags other than the core `!!str` are refused.
// Plain YAML scalars are resolved with the YAML 1.2 core schema (null, true/false, integers,
// floats); quoted scalars are always strings. Every failure throws ogai::Error(kParse) naming the
// origin, line and column and what was expected.
//
// Nodes are shared and immutable after parsing (aliases share subtrees); thread-safe to read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ogai::metadata {

struct Node;
using NodePtr = std::shared_ptr<const Node>;

struct Node {
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kSeq, kMap };
  Kind kind = Kind::kNull;
  std::string text;  // scalars: the text as written (strings: the value)
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0;                                     // kFloat (and kInt, converted)
  std::vector<NodePtr> items;                            // kSeq
  std::vector<std::pair<std::string, NodePtr>> entries;  // kMap, in document order
  int line = 0, column = 0;                              // 1-based; 0 when unknown (JSON)
  std::size_t weight = 1;                                // nodes in this subtree, aliases expanded

  bool is_scalar() const { return kind != Kind::kSeq && kind != Kind::kMap; }
  const Node* find(std::string_view key) const;  // kMap only; nullptr when absent
};

// "string", "integer", "mapping", ... for messages.
const char* node_kind_name(Node::Kind kind);
// A short rendering of a node for messages: scalars as written, `{...}` / `[...]` otherwise.
std::string node_preview(const Node& node);

struct ParseLimits {
  std::size_t max_bytes = 16u << 20;   // document size
  int max_depth = 64;                  // nested mappings/sequences
  std::size_t max_nodes = 1u << 20;    // nodes, aliases expanded
};

// Parses YAML text (one document). `origin` names the text in errors (a file path).
NodePtr parse_yaml(std::string_view text, const std::string& origin, const ParseLimits& limits = {});
// Parses JSON text with the same checks and the same tree.
NodePtr parse_json(std::string_view text, const std::string& origin, const ParseLimits& limits = {});

// Throws ogai::Error(kParse) naming `origin` and the byte offset when `text` is not valid UTF-8
// or holds a control character other than tab, LF, CR. Returns the text without a UTF-8 BOM.
std::string_view check_text(std::string_view text, const std::string& origin, std::size_t max_bytes);

}  // namespace ogai::metadata
