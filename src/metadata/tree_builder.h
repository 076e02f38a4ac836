// Internal: assembles a Node tree from a stream of parse events (YAML or JSON), enforcing the
// limits of ParseLimits and refusing duplicate keys. Used by tree_yaml.cc and tree_json.cc.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "metadata/tree.h"

namespace ogai::metadata::detail {

class TreeBuilder {
 public:
  TreeBuilder(std::string origin, const ParseLimits& limits) : origin_(std::move(origin)), limits_(limits) {}

  // Scalars and aliases complete a value; containers open one and close it later.
  void value(std::shared_ptr<Node> node);
  void shared_value(NodePtr node);  // an alias: counted with its full weight
  void begin(std::shared_ptr<Node> container);
  NodePtr end();  // closes the innermost container and returns it

  // The next value in the innermost mapping is stored under `key` (a scalar node's text).
  void key(const Node& key_node);
  bool expecting_key() const;  // the innermost container is a mapping waiting for a key

  NodePtr root() const { return root_; }
  [[noreturn]] void fail_at(int line, int column, const std::string& message) const;

 private:
  struct Open {
    std::shared_ptr<Node> node;
    std::string pending_key;
    bool has_key = false;
    int key_line = 0, key_column = 0;
    std::unordered_set<std::string> keys;
  };
  void attach(NodePtr node, std::size_t weight);
  void count(std::size_t weight, int line, int column);

  std::string origin_;
  ParseLimits limits_;
  std::vector<Open> stack_;
  NodePtr root_;
  std::size_t total_weight_ = 0;
};

// Resolves a plain (unquoted) YAML scalar with the YAML 1.2 core schema.
std::shared_ptr<Node> resolve_plain_scalar(const std::string& text);
std::shared_ptr<Node> string_node(const std::string& text);

}  // namespace ogai::metadata::detail
