#include "metadata/tree_builder.h"

#include <fmt/format.h>

#include "base/error.h"

namespace ogai::metadata::detail {

void TreeBuilder::fail_at(int line, int column, const std::string& message) const {
  std::string where = line > 0 ? fmt::format("{}:{}:{}", origin_, line, column) : origin_;
  fail(ErrorCode::kParse, where, "{}", message);
}

void TreeBuilder::count(std::size_t weight, int line, int column) {
  total_weight_ += weight;
  if (total_weight_ > limits_.max_nodes)
    fail_at(line, column, fmt::format("document expands to more than {} nodes (aliases counted "
                                      "as copies); refusing to read it", limits_.max_nodes));
}

bool TreeBuilder::expecting_key() const {
  return !stack_.empty() && stack_.back().node->kind == Node::Kind::kMap && !stack_.back().has_key;
}

void TreeBuilder::key(const Node& key_node) {
  Open& top = stack_.back();
  if (!key_node.is_scalar())
    fail_at(key_node.line, key_node.column, "mapping keys must be scalars, not a " +
                                                std::string(node_kind_name(key_node.kind)));
  if (!top.keys.insert(key_node.text).second)
    fail_at(key_node.line, key_node.column,
            fmt::format("duplicate key '{}' in the same mapping; each key may appear once", key_node.text));
  top.pending_key = key_node.text;
  top.has_key = true;
  top.key_line = key_node.line;
  top.key_column = key_node.column;
}

void TreeBuilder::attach(NodePtr node, std::size_t weight) {
  if (stack_.empty()) {
    if (root_) fail_at(node->line, node->column, "more than one document; expected exactly one");
    root_ = std::move(node);
    return;
  }
  Open& top = stack_.back();
  top.node->weight += weight;
  if (top.node->kind == Node::Kind::kSeq) {
    top.node->items.push_back(std::move(node));
  } else {
    top.node->entries.emplace_back(std::move(top.pending_key), std::move(node));
    top.pending_key.clear();
    top.has_key = false;
  }
}

void TreeBuilder::value(std::shared_ptr<Node> node) {
  if (expecting_key()) {
    key(*node);
    count(1, node->line, node->column);
    return;
  }
  count(1, node->line, node->column);
  attach(std::move(node), 1);
}

void TreeBuilder::shared_value(NodePtr node) {
  if (expecting_key()) fail_at(node->line, node->column, "an alias cannot be a mapping key");
  count(node->weight, node->line, node->column);
  std::size_t weight = node->weight;
  attach(std::move(node), weight);
}

void TreeBuilder::begin(std::shared_ptr<Node> container) {
  if (expecting_key())
    fail_at(container->line, container->column,
            "mapping keys must be scalars, not a " + std::string(node_kind_name(container->kind)));
  if (static_cast<int>(stack_.size()) >= limits_.max_depth)
    fail_at(container->line, container->column,
            fmt::format("nesting deeper than {} levels; refusing to read it", limits_.max_depth));
  count(1, container->line, container->column);
  Open open;
  open.node = std::move(container);
  stack_.push_back(std::move(open));
}

NodePtr TreeBuilder::end() {
  Open top = std::move(stack_.back());
  stack_.pop_back();
  NodePtr done = top.node;
  std::size_t weight = top.node->weight;
  if (stack_.empty()) {
    attach(done, weight);
  } else {
    Open& parent = stack_.back();
    parent.node->weight += weight;
    if (parent.node->kind == Node::Kind::kSeq) {
      parent.node->items.push_back(done);
    } else {
      parent.node->entries.emplace_back(std::move(parent.pending_key), done);
      parent.pending_key.clear();
      parent.has_key = false;
    }
  }
  return done;
}

}  // namespace ogai::metadata::detail
