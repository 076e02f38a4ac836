// The derived decoder ABI (§2.6) against generated graphs: KV pairs in ABI order with per-port
// geometry, borrows, roles, static-cache ports, legacy model.io, and the "no sole decoder" case.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::metadata {
namespace {

using testing::catalogue_text;
using testing::GraphSpec;
using testing::Port;
using testing::replace_once;
using testing::TempDir;

// Graph ports of the E2B-shaped target of examples 23/24: full layers head_dim 32, sliding 16.
GraphSpec e2b_target(bool hidden) {
  GraphSpec g;
  g.inputs.push_back({"input_ids", "int64", {"batch", "sequence"}});
  g.outputs.push_back({"logits", "float16", {"batch", "sequence", "262144"}});
  if (hidden) g.outputs.push_back({"hidden", "float16", {"batch", "sequence", "1536"}});
  for (std::string name : {"full_key_0", "full_value_0", "full_key_1", "full_value_1"}) {
    g.inputs.push_back({name, "float16", {"batch", "1", "past_sequence", "32"}});
    g.outputs.push_back({"next_" + name, "float16", {"batch", "1", "total_sequence", "32"}});
  }
  for (std::string name : {"sliding_key_0", "sliding_value_0"}) {
    g.inputs.push_back({name, "float16", {"batch", "1", "past_sequence", "16"}});
    g.outputs.push_back({"next_" + name, "float16", {"batch", "1", "total_sequence", "16"}});
  }
  g.initializers.push_back({"model.embed_tokens.weight", "float16", {"262144", "1536"}});
  return g;
}

GraphSpec e2b_assistant() {
  GraphSpec g;
  g.inputs.push_back({"inputs_embeds", "float16", {"batch", "sequence", "3072"}});
  g.inputs.push_back({"shared_kv.full_attention.key", "float16", {"batch", "1", "kv_len", "32"}});
  g.inputs.push_back({"shared_kv.full_attention.value", "float16", {"batch", "1", "kv_len", "32"}});
  g.inputs.push_back({"shared_kv.sliding_attention.key", "float16", {"batch", "1", "kv_len", "16"}});
  g.inputs.push_back({"shared_kv.sliding_attention.value", "float16", {"batch", "1", "kv_len", "16"}});
  g.outputs.push_back({"draft_logits", "float16", {"batch", "sequence", "262144"}});
  g.outputs.push_back({"next_projected_state", "float16", {"batch", "sequence", "1536"}});
  return g;
}

ValidationReport package_24(TempDir& dir, const std::string& yaml, const GraphSpec& target) {
  dir.write("inference_metadata.yaml", yaml);
  dir.write("gemma4_e2b/decoder.onnx.textproto", testing::graph_textproto(target));
  dir.write("gemma4_e2b_assistant/model.onnx.textproto", testing::graph_textproto(e2b_assistant()));
  return validate_package(dir.path());
}

TEST(AbiTest, Example24TargetHasSixPairsWithGraphGeometry) {
  TempDir dir("abi24");
  ValidationReport report = package_24(dir, catalogue_text("24-gemma4-e2b-assistant-speculative.yaml"), e2b_target(true));
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  const DecoderAbi& abi = *report.package->decoder;
  EXPECT_EQ(abi.component, "target");
  EXPECT_EQ(abi.artifact, dir.path() / "gemma4_e2b/decoder.onnx.textproto");
  EXPECT_EQ(abi.token_ids_input, "input_ids");
  EXPECT_EQ(abi.logits_output, "logits");
  EXPECT_EQ(abi.hidden_states_output, "hidden");
  EXPECT_EQ(abi.sequence_source, "token_ids");
  EXPECT_EQ(abi.kv_ownership, "owned");
  EXPECT_EQ(abi.aliasing, Aliasing::kForbidden);
  EXPECT_EQ(abi.kv_layout, "bnsh");
  ASSERT_EQ(abi.kv_pairs.size(), 6u);
  std::vector<std::string> order;
  std::vector<std::int64_t> head_dims;
  for (const KvPair& p : abi.kv_pairs) {
    order.push_back(p.group + "/" + p.input + "->" + p.output);
    head_dims.push_back(p.geometry.head_dim);
    EXPECT_EQ(p.geometry.kv_heads, 1) << p.input;
    EXPECT_EQ(p.geometry.dtype, DataType::kFloat16);
    EXPECT_EQ(p.geometry.sequence_axis, 2);
    EXPECT_EQ(p.geometry.symbols[2], "past_sequence");
    EXPECT_EQ(p.present_geometry.symbols[2], "total_sequence");
  }
  EXPECT_EQ(order, (std::vector<std::string>{
                       "full_attention/full_key_0->next_full_key_0", "full_attention/full_value_0->next_full_value_0",
                       "full_attention/full_key_1->next_full_key_1", "full_attention/full_value_1->next_full_value_1",
                       "sliding_attention/sliding_key_0->next_sliding_key_0",
                       "sliding_attention/sliding_value_0->next_sliding_value_0"}));
  EXPECT_EQ(head_dims, (std::vector<std::int64_t>{32, 32, 32, 32, 16, 16}));
  EXPECT_EQ(abi.kv_pairs[2].role, KvRole::kKey);
  EXPECT_EQ(abi.kv_pairs[2].layer, 1);
  ASSERT_EQ(abi.groups.size(), 2u);
  EXPECT_FALSE(abi.groups[0].evictable_prefix);
  EXPECT_TRUE(abi.groups[1].evictable_prefix);
  EXPECT_EQ(abi.groups[1].kind, GroupKind::kSlidingAttention);
  EXPECT_EQ(abi.groups[0].rollback_positions, 4);
  ASSERT_EQ(abi.borrowed.size(), 4u);
  EXPECT_EQ(abi.borrowed[0].component, "assistant");
  EXPECT_EQ(abi.borrowed[0].cell, "full_key_1");
  EXPECT_EQ(abi.borrowed[0].input, "shared_kv.full_attention.key");
  EXPECT_EQ(abi.borrowed[0].geometry.head_dim, 32);
  EXPECT_EQ(abi.borrowed[2].geometry.head_dim, 16);
  EXPECT_TRUE(abi.other_inputs.empty());
  const Speculative& spec = *report.package->document.speculative;
  EXPECT_EQ(spec.chained->token_embedding->second, "model.embed_tokens.weight");
}

TEST(AbiTest, HiddenTapWithoutRoleIsRejectedByR5) {
  TempDir dir("abi24_r5");
  std::string yaml = replace_once(catalogue_text("24-gemma4-e2b-assistant-speculative.yaml"),
                                  "roles: {input_ids: token_ids, logits: logits, hidden: hidden_states}",
                                  "roles: {input_ids: token_ids, logits: logits}");
  ValidationReport report = package_24(dir, yaml, e2b_target(true));
  EXPECT_TRUE(testing::has(report.diagnostics, "R5", "components.target.ports.roles", "'hidden'")) << report.diagnostics.text();
}

TEST(AbiTest, TokenEmbeddingTableMustBeATargetInitializer) {
  TempDir dir("abi24_r6");
  GraphSpec target = e2b_target(true);
  target.initializers.clear();
  ValidationReport report = package_24(dir, catalogue_text("24-gemma4-e2b-assistant-speculative.yaml"), target);
  EXPECT_TRUE(testing::has(report.diagnostics, "R6", "token_embedding.table", "model.embed_tokens.weight"))
      << report.diagnostics.text();
}

TEST(AbiTest, Example25HasPerGroupHeadCounts) {
  TempDir dir("abi25");
  GraphSpec g;
  g.inputs.push_back({"input_ids", "int64", {"batch", "sequence"}});
  g.outputs.push_back({"logits", "float16", {"batch", "sequence", "262144"}});
  for (auto [name, heads, dim] : {std::tuple{"full", "2", "512"}, std::tuple{"sliding", "8", "256"}})
    for (std::string kv : {"_key", "_value"}) {
      g.inputs.push_back({name + kv, "float16", {"batch", heads, "past", dim}});
      g.outputs.push_back({"next_" + std::string(name) + kv, "float16", {"batch", heads, "total", dim}});
    }
  dir.write("inference_metadata.yaml", catalogue_text("25-gemma4-26b-a4b-moe-decoder.yaml"));
  dir.write("gemma4_26b_a4b/decoder.onnx.textproto", testing::graph_textproto(g));
  ValidationReport report = validate_package(dir.path());
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  const DecoderAbi& abi = *report.package->decoder;
  ASSERT_EQ(abi.kv_pairs.size(), 4u);
  EXPECT_EQ(abi.kv_pairs[0].input, "full_key");
  EXPECT_EQ(abi.kv_pairs[0].layer, 5);
  EXPECT_EQ(abi.kv_pairs[0].geometry.kv_heads, 2);
  EXPECT_EQ(abi.kv_pairs[0].geometry.head_dim, 512);
  EXPECT_EQ(abi.kv_pairs[2].input, "sliding_key");
  EXPECT_EQ(abi.kv_pairs[2].geometry.kv_heads, 8);
  EXPECT_EQ(abi.kv_pairs[3].geometry.head_dim, 256);
  EXPECT_FALSE(abi.hidden_states_output);
}

TEST(AbiTest, GraphDisagreeingWithDeclaredPortsIsRejectedByR2) {
  TempDir dir("abi23_r2");
  GraphSpec g = e2b_target(false);
  g.inputs[0].dtype = "int32";  // input_ids declared int64
  g.initializers.clear();
  dir.write("inference_metadata.yaml", catalogue_text("23-gemma4-e2b-decoder.yaml"));
  dir.write("gemma4_e2b/decoder.onnx.textproto", testing::graph_textproto(g));
  ValidationReport report = validate_package(dir.path());
  EXPECT_TRUE(testing::has(report.diagnostics, "R2", "ports.inputs.input_ids", "dtype int64 declared, graph has int32"))
      << report.diagnostics.text();
}

TEST(AbiTest, DecoderFixtureAbi) {
  ValidationReport report = validate_package(testing::fixture_dir("decoder"));
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  const DecoderAbi& abi = *report.package->decoder;
  EXPECT_EQ(abi.component, "model");
  EXPECT_EQ(abi.attention_mask_input, "attention_mask");
  EXPECT_EQ(abi.position_ids_input, "position_ids");
  ASSERT_EQ(abi.kv_pairs.size(), 1u);
  EXPECT_EQ(abi.kv_pairs[0].role, KvRole::kCombined);
  EXPECT_EQ(abi.kv_pairs[0].geometry.kv_heads, 2);
  EXPECT_EQ(abi.kv_pairs[0].geometry.head_dim, 8);
  EXPECT_EQ(abi.aliasing, Aliasing::kPermitted);
  EXPECT_EQ(abi.groups[0].rollback_positions, 32);
  EXPECT_EQ(abi.groups[0].logical_lengths, "cache_lengths");
}

TEST(AbiTest, StaticCacheFixtureAbi) {
  ValidationReport report = validate_package(testing::fixture_dir("static_cache"));
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  const DecoderAbi& abi = *report.package->decoder;
  ASSERT_TRUE(abi.static_cache);
  EXPECT_EQ(abi.static_cache->write_indices_input, "write_indices");
  EXPECT_EQ(abi.static_cache->kv_length_input, "cache_lengths");
  EXPECT_EQ(abi.static_cache->capacity, 8);
  EXPECT_EQ(abi.groups[0].update, UpdateKind::kIndexedScatter);
  ASSERT_EQ(abi.kv_pairs.size(), 2u);
  EXPECT_EQ(abi.kv_pairs[0].role, KvRole::kKey);
  EXPECT_EQ(abi.kv_pairs[1].role, KvRole::kValue);
  EXPECT_EQ(abi.kv_pairs[0].geometry.head_dim, 4);
  EXPECT_EQ(abi.kv_pairs[0].geometry.kv_heads, -1);  // rank 3: no head axis
  ASSERT_EQ(abi.other_inputs.size(), 2u);
  EXPECT_EQ(abi.other_inputs[0].purpose, "write_indices");
  EXPECT_EQ(abi.other_inputs[1].purpose, "kv_length");
  EXPECT_EQ(abi.other_inputs[1].bound_value, "setup.cache_lengths");
}

TEST(AbiTest, NoSoleDecoderMeansNoFlatAbi) {
  ValidationReport report = validate_package(testing::fixture_dir("speculative"));
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  EXPECT_FALSE(report.package->decoder);
  EXPECT_FALSE(validate_text(catalogue_text("15-windowed-attention.yaml"), "15.yaml").package->decoder);
}

TEST(AbiTest, ExplicitLengthInputsAreReportedAsOtherInputs) {
  TempDir dir("abi_other");
  std::string yaml = replace_once(catalogue_text("25-gemma4-26b-a4b-moe-decoder.yaml"), "        input_ids: request.input_ids\n",
                                  "        input_ids: request.input_ids\n        seqlens_k: request.seqlens\n");
  yaml = replace_once(yaml, "    outputs:\n", "      request.seqlens:\n        contract: {dtype: int32, rank: 1, shape: [batch], "
                                               "batch_layout: {kind: request_aligned, axis: 0}}\n        role: {kind: opaque}\n"
                                               "        source: {kind: application, name: seqlens_k}\n    outputs:\n");
  yaml = replace_once(yaml, "          outputs:\n            logits:", "            seqlens_k: {dtype: int32, rank: 1, shape: [batch], "
                                                                      "batch_layout: {kind: request_aligned, axis: 0}}\n          outputs:\n            logits:");
  Diagnostics d = testing::check(yaml);
  ASSERT_TRUE(d.empty()) << d.text();
  ValidationReport report = validate_text(yaml, "x.yaml");
  const DecoderAbi& abi = *report.package->decoder;
  ASSERT_EQ(abi.other_inputs.size(), 1u);
  EXPECT_EQ(abi.other_inputs[0].port, "seqlens_k");
  EXPECT_EQ(abi.other_inputs[0].purpose, "workflow");
  EXPECT_EQ(abi.other_inputs[0].bound_value, "request.seqlens");
  EXPECT_EQ(abi.other_inputs[0].source, InputSource::Kind::kApplication);
}

TEST(AbiTest, LegacyModelIoMapsToTheSameAbi) {
  TempDir dir("legacy");
  dir.write("inference_metadata.yaml",
            "model:\n  max_sequence_length: 512\n  io:\n    token_input: input_ids\n    attention_mask_input: attention_mask\n"
            "    position_ids_input: position_ids\n    logits_output: logits\n    hidden_output: hidden_states.0\n"
            "    kv_inputs: [past_key_values.0.key, past_key_values.0.value]\n    kv_outputs: [present.0.key, present.0.value]\n");
  GraphSpec g;
  g.inputs = {{"input_ids", "int64", {"batch", "seq"}}, {"attention_mask", "int64", {"batch", "total"}},
              {"position_ids", "int64", {"batch", "seq"}}, {"past_key_values.0.key", "float32", {"batch", "2", "past", "16"}},
              {"past_key_values.0.value", "float32", {"batch", "2", "past", "16"}}};
  g.outputs = {{"logits", "float32", {"batch", "seq", "100"}}, {"hidden_states.0", "float32", {"batch", "seq", "64"}},
               {"present.0.key", "float32", {"batch", "2", "total", "16"}}, {"present.0.value", "float32", {"batch", "2", "total", "16"}}};
  dir.write("model.onnx.textproto", testing::graph_textproto(g));
  ValidationReport report = validate_package(dir.path());
  ASSERT_TRUE(report.valid()) << report.diagnostics.text();
  const DecoderAbi& abi = *report.package->decoder;
  EXPECT_TRUE(abi.legacy);
  EXPECT_EQ(abi.hidden_states_output, "hidden_states.0");
  ASSERT_EQ(abi.kv_pairs.size(), 2u);
  EXPECT_EQ(abi.kv_pairs[1].output, "present.0.value");
  EXPECT_EQ(abi.kv_pairs[1].geometry.head_dim, 16);
  EXPECT_EQ(abi.kv_ownership, "owned");
  EXPECT_EQ(report.package->max_sequence_length(), 512);
  // a rank-3 output nobody declared is refused (R5) ...
  g.outputs.push_back({"hidden_states.1", "float32", {"batch", "seq", "64"}});
  dir.write("model.onnx.textproto", testing::graph_textproto(g));
  EXPECT_TRUE(testing::has(validate_package(dir.path()).diagnostics, "R5", "model.io", "hidden_states.1"));
  // ... and without a graph the package is incomplete (PKG).
  std::filesystem::remove(dir.path() / "model.onnx.textproto");
  EXPECT_TRUE(testing::has(validate_package(dir.path()).diagnostics, "PKG", "model.io", "model.onnx"));
}

}  // namespace
}  // namespace ogai::metadata
