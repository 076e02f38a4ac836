// The document tree: YAML/JSON reading, scalar resolution, and every format-level refusal
// (duplicate keys, non-UTF-8, limits, tags, multiple documents) as a clear ogai::Error.
#include <gtest/gtest.h>

#include <string>

#include "metadata/tree.h"
#include "ogai/error.h"

namespace ogai::metadata {
namespace {

std::string parse_error(const std::string& text, bool json = false, ParseLimits limits = {}) {
  try {
    json ? parse_json(text, "doc.json", limits) : parse_yaml(text, "doc.yaml", limits);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text.substr(0, 80);
  return "";
}

TEST(TreeTest, ResolvesPlainScalarsWithTheCoreSchema) {
  NodePtr root = parse_yaml("a: 1\nb: -7\nc: 1.5\nd: true\ne: ~\nf: '1.0'\ng: v1\nh: 0x10\ni: \"true\"\nj: .inf\n", "t");
  ASSERT_EQ(root->kind, Node::Kind::kMap);
  EXPECT_EQ(root->find("a")->kind, Node::Kind::kInt);
  EXPECT_EQ(root->find("b")->integer, -7);
  EXPECT_EQ(root->find("c")->kind, Node::Kind::kFloat);
  EXPECT_DOUBLE_EQ(root->find("c")->number, 1.5);
  EXPECT_TRUE(root->find("d")->boolean);
  EXPECT_EQ(root->find("e")->kind, Node::Kind::kNull);
  EXPECT_EQ(root->find("f")->kind, Node::Kind::kString);  // quoted stays a string
  EXPECT_EQ(root->find("f")->text, "1.0");
  EXPECT_EQ(root->find("g")->kind, Node::Kind::kString);
  EXPECT_EQ(root->find("h")->integer, 16);
  EXPECT_EQ(root->find("i")->kind, Node::Kind::kString);
  EXPECT_EQ(root->find("j")->kind, Node::Kind::kFloat);
  EXPECT_EQ(root->find("a")->line, 1);
  EXPECT_EQ(root->find("b")->line, 2);
}

TEST(TreeTest, ResolvesNumberSpellings) {
  NodePtr root = parse_yaml("a: 1e5\nb: 1.\nc: .\nd: -.5\ne: +1\nf: 0o17\ng: 1_000\nh: 1e\ni: -.inf\nj: 0x\n", "t");
  EXPECT_EQ(root->find("a")->kind, Node::Kind::kFloat);
  EXPECT_DOUBLE_EQ(root->find("a")->number, 1e5);
  EXPECT_EQ(root->find("b")->kind, Node::Kind::kFloat);
  EXPECT_EQ(root->find("c")->kind, Node::Kind::kString);
  EXPECT_DOUBLE_EQ(root->find("d")->number, -0.5);
  EXPECT_EQ(root->find("e")->integer, 1);
  EXPECT_EQ(root->find("f")->integer, 15);
  EXPECT_EQ(root->find("g")->kind, Node::Kind::kString);
  EXPECT_EQ(root->find("h")->kind, Node::Kind::kString);
  EXPECT_LT(root->find("i")->number, 0);
  EXPECT_EQ(root->find("j")->kind, Node::Kind::kString);
}

TEST(TreeTest, KeepsDocumentOrderAndAliases) {
  NodePtr root = parse_yaml("z: 1\na: &x {k: [1, 2]}\nm: *x\n", "t");
  ASSERT_EQ(root->entries.size(), 3u);
  EXPECT_EQ(root->entries[0].first, "z");
  EXPECT_EQ(root->entries[2].first, "m");
  EXPECT_EQ(root->find("m")->find("k")->items.size(), 2u);
}

TEST(TreeTest, RefusesDuplicateKeys) {
  EXPECT_NE(parse_error("a: 1\nb: 2\na: 3\n").find("duplicate key 'a'"), std::string::npos);
  EXPECT_NE(parse_error("x:\n  y: {p: 1, p: 2}\n").find("duplicate key 'p'"), std::string::npos);
  EXPECT_NE(parse_error(R"({"a": 1, "a": 2})", true).find("duplicate key 'a'"), std::string::npos);
}

TEST(TreeTest, NamesLineAndColumn) {
  std::string e = parse_error("a: 1\nb:\n  c: 1\n  c: 2\n");
  EXPECT_NE(e.find("doc.yaml:4:"), std::string::npos) << e;
}

TEST(TreeTest, RefusesInvalidUtf8AndControls) {
  EXPECT_NE(parse_error("a: \xff\xfe oops\n").find("UTF"), std::string::npos);
  EXPECT_NE(parse_error("a: \xc0\xaf\n").find("invalid UTF-8"), std::string::npos);           // overlong '/'
  EXPECT_NE(parse_error("a: \xed\xa0\x80\n").find("invalid UTF-8"), std::string::npos);       // surrogate
  EXPECT_NE(parse_error("a: \xe2\x82\n").find("invalid UTF-8"), std::string::npos);           // truncated
  EXPECT_NE(parse_error(std::string("a: b\0c\n", 7)).find("control character 0x00"), std::string::npos);
  EXPECT_NE(parse_error("a: \x1b[31m\n").find("control character 0x1B"), std::string::npos);
  EXPECT_NO_THROW(parse_yaml("\xEF\xBB\xBF" "a: caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x99\x82\n", "t"));  // BOM + UTF-8
}

TEST(TreeTest, RefusesDeepNestingAndHugeDocuments) {
  std::string deep(200, '[');
  deep += std::string(200, ']');
  EXPECT_NE(parse_error(deep).find("nesting deeper than 64"), std::string::npos);
  EXPECT_NE(parse_error(deep, true).find("nesting deeper than 64"), std::string::npos);
  std::string deep_map;
  for (int i = 0; i < 100; ++i) deep_map += std::string(i * 2, ' ') + "k:\n";
  EXPECT_NE(parse_error(deep_map).find("nesting deeper"), std::string::npos);
  ParseLimits small;
  small.max_bytes = 100;
  EXPECT_NE(parse_error(std::string(200, 'a'), false, small).find("limit is 100 bytes"), std::string::npos);
}

TEST(TreeTest, DefaultSizeLimitHoldsForWholeDocuments) {
  std::string big = "a: '" + std::string(17u << 20, 'x') + "'\n";
  EXPECT_NE(parse_error(big).find("limit is 16777216 bytes"), std::string::npos);
}

TEST(TreeTest, RefusesAliasExpansionBombs) {
  std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c)
    bomb += std::string(1, c) + ": &" + c + " [*" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" +
            char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) + ", *" + char(c - 1) +
            ", *" + char(c - 1) + ", *" + char(c - 1) + "]\n";
  EXPECT_NE(parse_error(bomb).find("expands to more than"), std::string::npos);
}

TEST(TreeTest, RefusesMalformedTextClearly) {
  EXPECT_NE(parse_error("a: [1, 2\n").find("malformed YAML"), std::string::npos);
  EXPECT_NE(parse_error("a: b\n  c: d\n").find("malformed YAML"), std::string::npos);
  EXPECT_NE(parse_error("a: 1\n---\nb: 2\n").find("more than one"), std::string::npos);
  EXPECT_NE(parse_error("a: !!python/object x\n").find("unsupported YAML tag"), std::string::npos);
  EXPECT_NE(parse_error("").find("empty document"), std::string::npos);
  EXPECT_NE(parse_error("? [a]\n: 1\n").find("mapping keys must be scalars"), std::string::npos);
  EXPECT_NE(parse_error(R"({"a": [1, 2,]})", true).find("malformed JSON"), std::string::npos);
  EXPECT_NE(parse_error("", true).find("malformed JSON"), std::string::npos);
  EXPECT_NE(parse_error("a: 99999999999999999999\n").find("out of range"), std::string::npos);
}

TEST(TreeTest, ReadsJson) {
  NodePtr root = parse_json(R"({"b": [1, 2.5, "x", true, null], "a": {"c": -3}})", "t.json");
  EXPECT_EQ(root->entries[0].first, "b");
  const Node* b = root->find("b");
  EXPECT_EQ(b->items[0]->kind, Node::Kind::kInt);
  EXPECT_EQ(b->items[1]->kind, Node::Kind::kFloat);
  EXPECT_EQ(b->items[2]->text, "x");
  EXPECT_TRUE(b->items[3]->boolean);
  EXPECT_EQ(b->items[4]->kind, Node::Kind::kNull);
  EXPECT_EQ(root->find("a")->find("c")->integer, -3);
}

}  // namespace
}  // namespace ogai::metadata
