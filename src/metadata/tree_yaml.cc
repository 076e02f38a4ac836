// YAML text -> Node tree through yaml-cpp's event parser (so duplicate keys, aliases, tags and
// limits are seen event by event instead of after yaml-cpp built its own node graph).
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <sstream>

#include "base/error.h"
#include "metadata/tree.h"
#include "metadata/tree_builder.h"

namespace ogai::metadata {
namespace {

using detail::TreeBuilder;

class Handler : public YAML::EventHandler {
 public:
  explicit Handler(TreeBuilder& builder) : builder_(builder) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) builder_.fail_at(mark.line + 1, mark.column + 1, "more than one YAML document; expected exactly one");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto node = std::make_shared<Node>();
    place(node, mark);
    remember(anchor, node);
    builder_.value(node);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) builder_.fail_at(mark.line + 1, mark.column + 1, "alias to an unknown anchor");
    builder_.shared_value(it->second);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    std::shared_ptr<Node> node;
    if (tag == "?") {
      try {
        node = detail::resolve_plain_scalar(value);
      } catch (const std::out_of_range&) {
        builder_.fail_at(mark.line + 1, mark.column + 1, "integer " + value + " is out of range (64-bit signed)");
      }
    }
    else if (tag == "!" || tag == "tag:yaml.org,2002:str") node = detail::string_node(value);
    else builder_.fail_at(mark.line + 1, mark.column + 1, "unsupported YAML tag '" + tag + "'; only plain, quoted and !!str scalars are read");
    place(node, mark);
    remember(anchor, node);
    builder_.value(node);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(Node::Kind::kSeq, mark, tag, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(Node::Kind::kMap, mark, tag, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  static void place(const std::shared_ptr<Node>& node, const YAML::Mark& mark) {
    node->line = mark.line + 1;
    node->column = mark.column + 1;
  }
  void remember(YAML::anchor_t anchor, const NodePtr& node) {
    if (anchor != YAML::NullAnchor) anchors_[anchor] = node;
  }
  void open(Node::Kind kind, const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) {
    if (tag != "?" && tag != "!" && tag != "tag:yaml.org,2002:map" && tag != "tag:yaml.org,2002:seq")
      builder_.fail_at(mark.line + 1, mark.column + 1, "unsupported YAML tag '" + tag + "'");
    auto node = std::make_shared<Node>();
    node->kind = kind;
    place(node, mark);
    builder_.begin(node);
    pending_anchors_.push_back(anchor);
  }
  void close() {
    NodePtr done = builder_.end();
    remember(pending_anchors_.back(), done);
    pending_anchors_.pop_back();
  }

  TreeBuilder& builder_;
  std::map<YAML::anchor_t, NodePtr> anchors_;
  std::vector<YAML::anchor_t> pending_anchors_;
  int documents_ = 0;
};

}  // namespace

NodePtr parse_yaml(std::string_view text, const std::string& origin, const ParseLimits& limits) {
  text = check_text(text, origin, limits.max_bytes);
  TreeBuilder builder(origin, limits);
  Handler handler(builder);
  std::istringstream in{std::string(text)};
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(handler)) {
    }
  } catch (const YAML::Exception& e) {
    builder.fail_at(e.mark.line + 1, e.mark.column + 1, "malformed YAML: " + e.msg);
  }
  if (!builder.root()) fail(ErrorCode::kParse, origin, "empty document; expected a YAML mapping");
  return builder.root();
}

}  // namespace ogai::metadata
