// The graph reader's I/O listing must equal what ONNX Runtime reports for the same model.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/error.h"
#include "base/file.h"
#include "onnx/graph_info.h"
#include "onnx/textproto.h"
#include "ort/session.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kShared = OGAI_SHARED_DIR;

void expect_same_ports(const std::vector<const onnx::ValueInfo*>& ours, const std::vector<ort::PortInfo>& theirs,
                       const std::string& what) {
  ASSERT_EQ(ours.size(), theirs.size()) << what;
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const auto& a = *ours[i];
    const auto& b = theirs[i];
    SCOPED_TRACE(what + " " + a.name);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.dtype, b.dtype);
    ASSERT_TRUE(a.has_shape);
    ASSERT_EQ(a.shape.size(), b.shape.size());
    for (std::size_t d = 0; d < a.shape.size(); ++d) {
      EXPECT_EQ(a.shape[d].is_fixed() ? a.shape[d].value : -1, b.shape[d]);
      if (!a.shape[d].is_fixed()) {
        EXPECT_EQ(a.shape[d].symbol, b.symbols[d]);
      }
    }
  }
}

void expect_matches_ort(const fs::path& model) {
  onnx::GraphInfo g = onnx::read_graph_info(model);
  ort::Session s = ort::Session::open(model);
  expect_same_ports(g.runtime_inputs(), s.inputs(), model.string() + " inputs");
  std::vector<const onnx::ValueInfo*> outs;
  for (const auto& o : g.outputs) outs.push_back(&o);
  expect_same_ports(outs, s.outputs(), model.string() + " outputs");
}

TEST(GraphInfoTest, Stories260kMatchesOrt) {
  fs::path model = kShared / "models/stories260k/model.onnx";
  expect_matches_ort(model);
  onnx::GraphInfo g = onnx::read_graph_info(model);
  const onnx::ValueInfo* past = g.find_input("past_key_values.0.key");
  ASSERT_NE(past, nullptr);
  ASSERT_EQ(past->rank(), 4);
  EXPECT_EQ(past->shape[0].symbol, "batch_size");
  EXPECT_EQ(past->shape[1].value, 4);
  EXPECT_EQ(past->shape[2].symbol, "past_sequence_length");
  EXPECT_EQ(past->shape[3].value, 8);
  EXPECT_FALSE(g.initializers.empty());
  EXPECT_GT(g.node_count, 0u);
  EXPECT_EQ(g.opset_imports.at(""), 17);
}

TEST(GraphInfoTest, EveryConformanceTextprotoMatchesOrt) {
  int checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kShared / "conformance/metadata/fixtures")) {
    if (!onnx::is_textproto_path(entry.path())) continue;
    if (entry.path().filename() == "identity.onnx.textproto") continue;  // no nodes: ORT refuses it
    SCOPED_TRACE(entry.path().string());
    expect_matches_ort(entry.path());
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(GraphInfoTest, AttentionNodesKeepInputsAndIntegerAttributes) {
  // tiny-e2b: 10 GroupQueryAttention nodes; KV owners 0-5, layers 6-9 read owners 5 and 4.
  auto info = onnx::read_graph_info(fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b/model.onnx");
  ASSERT_EQ(info.attention_nodes.size(), 10u);
  const std::vector<std::string> owners = {"0", "1", "2", "3", "4", "5", "5", "5", "5", "4"};
  for (std::size_t i = 0; i < info.attention_nodes.size(); ++i) {
    const auto& node = info.attention_nodes[i];
    EXPECT_EQ(node.op_type, "GroupQueryAttention");
    ASSERT_GE(node.inputs.size(), 5u);
    EXPECT_EQ(node.inputs[3], "past_key_values." + owners[i] + ".key");
    EXPECT_EQ(node.int_attributes.at("num_heads"), 4);
    EXPECT_EQ(node.int_attributes.at("kv_num_heads"), 1);
    EXPECT_EQ(node.int_attributes.at("local_window_size"), owners[i] == "4" ? -1 : 8);
    EXPECT_FALSE(node.int_attributes.contains("scale"));  // a float attribute
  }
  // Standard-ops graphs have none.
  EXPECT_TRUE(onnx::read_graph_info(fs::path(OGAI_SHARED_DIR) / "models/stories260k/model.onnx").attention_nodes.empty());
}

TEST(GraphInfoTest, NodelessIdentityGraphStillListsIo) {
  onnx::GraphInfo g = onnx::read_graph_info(kShared / "conformance/metadata/fixtures/validator_package/identity.onnx.textproto");
  EXPECT_EQ(g.node_count, 0u);
  EXPECT_EQ(g.ir_version, 8);
  EXPECT_EQ(g.opset_imports.at(""), 13);
  EXPECT_TRUE(g.inputs.empty());
  EXPECT_TRUE(g.outputs.empty());
}

TEST(GraphInfoTest, ExternalDataLocationsAreListed) {
  onnx::GraphInfo g = onnx::read_graph_info(kShared / "conformance/metadata/fixtures/speculative/proposer/model.onnx.textproto");
  for (const auto& file : g.external_data_files()) EXPECT_FALSE(file.empty());
}

TEST(GraphInfoTest, GarbageIsAParseErrorNamingTheFile) {
  fs::path p = fs::path(testing::TempDir()) / "garbage.onnx";
  write_file(p, std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11));
  try {
    onnx::read_graph_info(p);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_NE(std::string(e.what()).find("garbage.onnx"), std::string::npos);
  }
  fs::path t = fs::path(testing::TempDir()) / "bad.onnx.textproto";
  write_file(t, "ir_version: 8\ngraph {\n  node { input: }\n");
  try {
    onnx::read_graph_info(t);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
}

TEST(GraphInfoTest, TruncatedModelIsRejected) {
  std::string bytes = read_file(kShared / "models/stories260k/model.onnx");
  bytes.resize(bytes.size() / 2);
  fs::path p = fs::path(testing::TempDir()) / "truncated.onnx";
  write_file(p, bytes);
  EXPECT_THROW(onnx::read_graph_info(p), Error);
}

}  // namespace
}  // namespace ogai

#include "base/half.h"
#include "onnx/initializer_data.h"

#include <cmath>

namespace ogai {
namespace {

TEST(InitializerDataTest, ReadsEmbeddedAndExternalTablesIdentically) {
  const fs::path packages = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages";
  auto f32 = onnx::read_initializer_data(packages / "tiny-e2b/model.onnx", "model.embed_tokens.weight");
  EXPECT_EQ(f32.dtype, DataType::kFloat32);
  ASSERT_EQ(f32.dims.size(), 2u);
  EXPECT_EQ(f32.dims[0], 515);
  EXPECT_EQ(f32.bytes.size(), static_cast<std::size_t>(f32.dims[0] * f32.dims[1] * 4));
  auto f16 = onnx::read_initializer_data(packages / "tiny-e2b-fp16/model.onnx", "model.embed_tokens.weight");
  EXPECT_EQ(f16.dtype, DataType::kFloat16);  // stored in model.onnx.data
  EXPECT_EQ(f16.dims, f32.dims);
  EXPECT_EQ(f16.bytes.size(), f32.bytes.size() / 2);
  // The float16 package casts the same weights: the values agree to half precision.
  const auto* a = reinterpret_cast<const float*>(f32.bytes.data());
  const auto* h = reinterpret_cast<const std::uint16_t*>(f16.bytes.data());
  for (std::size_t i = 0; i < f16.bytes.size() / 2; ++i)
    ASSERT_NEAR(half_to_float(h[i]), a[i], 1e-3f * std::max(1.0f, std::abs(a[i]))) << i;
  EXPECT_THROW(onnx::read_initializer_data(packages / "tiny-e2b/model.onnx", "no.such.table"), Error);
}

}  // namespace
}  // namespace ogai
