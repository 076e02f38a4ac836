// JSON text -> Node tree through nlohmann's SAX interface (duplicate keys refused, limits kept).
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "metadata/tree.h"
#include "metadata/tree_builder.h"

namespace ogai::metadata {
namespace {

using detail::TreeBuilder;

class Sax : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Sax(TreeBuilder& builder) : builder_(builder) {}

  bool null() override { return scalar(std::make_shared<Node>()); }
  bool boolean(bool value) override {
    auto node = detail::resolve_plain_scalar(value ? "true" : "false");
    return scalar(node);
  }
  bool number_integer(number_integer_t value) override { return integer(value); }
  bool number_unsigned(number_unsigned_t value) override {
    if (value > static_cast<number_unsigned_t>(INT64_MAX)) builder_.fail_at(0, 0, "integer " + std::to_string(value) + " is out of range");
    return integer(static_cast<std::int64_t>(value));
  }
  bool number_float(number_float_t value, const string_t& text) override {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kFloat;
    node->number = value;
    node->text = text;
    return scalar(node);
  }
  bool string(string_t& value) override { return scalar(detail::string_node(value)); }
  bool binary(binary_t&) override { return false; }
  bool start_object(std::size_t) override { return open(Node::Kind::kMap); }
  bool key(string_t& value) override {
    builder_.key(*detail::string_node(value));
    return true;
  }
  bool end_object() override {
    builder_.end();
    return true;
  }
  bool start_array(std::size_t) override { return open(Node::Kind::kSeq); }
  bool end_array() override {
    builder_.end();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    fail(ErrorCode::kParse, builder_origin(position), "malformed JSON: {}", e.what());
  }

  std::string origin;

 private:
  std::string builder_origin(std::size_t position) const {
    return origin + " (byte " + std::to_string(position) + ")";
  }
  bool integer(std::int64_t value) {
    auto node = std::make_shared<Node>();
    node->kind = Node::Kind::kInt;
    node->integer = value;
    node->number = static_cast<double>(value);
    node->text = std::to_string(value);
    return scalar(node);
  }
  bool scalar(std::shared_ptr<Node> node) {
    builder_.value(std::move(node));
    return true;
  }
  bool open(Node::Kind kind) {
    auto node = std::make_shared<Node>();
    node->kind = kind;
    builder_.begin(node);
    return true;
  }
  TreeBuilder& builder_;
};

}  // namespace

NodePtr parse_json(std::string_view text, const std::string& origin, const ParseLimits& limits) {
  text = check_text(text, origin, limits.max_bytes);
  TreeBuilder builder(origin, limits);
  Sax sax(builder);
  sax.origin = origin;
  nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  if (!builder.root()) fail(ErrorCode::kParse, origin, "empty document; expected a JSON object");
  return builder.root();
}

}  // namespace ogai::metadata
