// The project's own test packages (tests/data/packages/*, build/packages/stories260k) validate
// with their graphs admitted, and their decoder ABI carries the geometry of the real graphs.
#include <gtest/gtest.h>

#include <filesystem>

#include "support.h"

namespace ogai::metadata {
namespace {

namespace fs = std::filesystem;

Package load(const fs::path& dir) {
  ValidationReport report = validate_package(dir);
  EXPECT_TRUE(report.valid()) << dir << "\n" << report.diagnostics.text();
  return std::move(*report.package);
}

fs::path project_package(const std::string& name) { return fs::path(OGAI_SOURCE_DIR) / "tests/data/packages" / name; }

std::vector<std::int64_t> head_dims(const DecoderAbi& abi) {
  std::vector<std::int64_t> out;
  for (const KvPair& p : abi.kv_pairs) out.push_back(p.geometry.head_dim);
  return out;
}

TEST(ProjectPackagesTest, TinyE2bHasHybridGeometryAndAHiddenTap) {
  for (const char* name : {"tiny-e2b", "tiny-e2b-fp16"}) {
    Package p = load(project_package(name));
    ASSERT_TRUE(p.decoder) << name;
    const DecoderAbi& abi = *p.decoder;
    EXPECT_EQ(abi.kv_pairs.size(), 12u);  // 6 owner layers, key + value
    EXPECT_EQ(head_dims(abi), (std::vector<std::int64_t>{32, 32, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16}));
    EXPECT_EQ(abi.kv_pairs[0].input, "past_key_values.4.key");
    EXPECT_EQ(abi.kv_pairs[0].geometry.kv_heads, 1);
    EXPECT_EQ(abi.hidden_states_output, "hidden_states.9");
    EXPECT_EQ(abi.attention_mask_input, "attention_mask");
    EXPECT_FALSE(abi.position_ids_input);
    EXPECT_TRUE(abi.other_inputs.empty());
    EXPECT_TRUE(p.files.text.tokenizer_json);
    EXPECT_TRUE(p.files.text.chat_template_file);
    EXPECT_EQ(p.files.text.generation_config_eos_ids, (std::vector<std::int64_t>{1, 5}));
    EXPECT_EQ(p.max_sequence_length(), 512);
  }
  EXPECT_EQ(load(project_package("tiny-e2b-fp16")).decoder->kv_pairs[0].geometry.dtype, DataType::kFloat16);
}

TEST(ProjectPackagesTest, TinyMoeHasPerGroupHeadCounts) {
  Package p = load(project_package("tiny-moe"));
  const DecoderAbi& abi = *p.decoder;
  ASSERT_EQ(abi.kv_pairs.size(), 12u);
  EXPECT_EQ(abi.kv_pairs[0].group, "full_attention");
  EXPECT_EQ(abi.kv_pairs[0].geometry.kv_heads, 1);
  EXPECT_EQ(abi.kv_pairs[0].geometry.head_dim, 32);
  EXPECT_EQ(abi.kv_pairs[2].group, "sliding_attention");
  EXPECT_EQ(abi.kv_pairs[2].geometry.kv_heads, 2);
  EXPECT_EQ(abi.kv_pairs[2].geometry.head_dim, 16);
  ASSERT_TRUE(p.document.model && p.document.model->mixture_of_experts);
}

TEST(ProjectPackagesTest, TinySpeculativeBorrowsTheTargetCache) {
  Package p = load(project_package("tiny-e2b-speculative"));
  const DecoderAbi& abi = *p.decoder;
  EXPECT_EQ(abi.component, "target");
  EXPECT_EQ(abi.kv_pairs.size(), 12u);
  ASSERT_EQ(abi.borrowed.size(), 4u);
  EXPECT_EQ(abi.borrowed[0].component, "assistant");
  EXPECT_EQ(abi.borrowed[0].geometry.head_dim, 32);
  EXPECT_EQ(abi.borrowed[2].geometry.head_dim, 16);
  ASSERT_TRUE(p.document.speculative && p.document.speculative->chained);
  EXPECT_EQ(p.document.speculative->proposer, "assistant");
  EXPECT_EQ(p.graphs.count("assistant"), 1u);
}

TEST(ProjectPackagesTest, Stories260kPackage) {
  fs::path dir = fs::path(OGAI_BINARY_DIR) / "packages/stories260k";
  ASSERT_TRUE(fs::exists(dir / "inference_metadata.yaml")) << "assembled at configure time";
  Package p = load(dir);
  const DecoderAbi& abi = *p.decoder;
  EXPECT_EQ(abi.kv_pairs.size(), 10u);
  EXPECT_EQ(abi.kv_pairs[9].output, "present.4.value");
  EXPECT_EQ(abi.kv_pairs[0].geometry.kv_heads, 4);
  EXPECT_EQ(abi.kv_pairs[0].geometry.head_dim, 8);
  EXPECT_EQ(abi.position_ids_input, "position_ids");
}

}  // namespace
}  // namespace ogai::metadata
