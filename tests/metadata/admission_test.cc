// ONNX admission against generated graphs: R2 (inferred ports), R3, R4, R5, R7, R8.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::metadata {
namespace {

using testing::catalogue_text;
using testing::GraphSpec;
using testing::has;
using testing::replace_once;
using testing::TempDir;

GraphSpec moe_decoder() {
  GraphSpec g;
  g.inputs.push_back({"input_ids", "int64", {"batch", "sequence"}});
  g.outputs.push_back({"logits", "float16", {"batch", "sequence", "1000"}});
  for (std::string name : {"full_key", "full_value", "sliding_key", "sliding_value"}) {
    g.inputs.push_back({name, "float16", {"batch", "2", "past", "64"}});
    g.outputs.push_back({"next_" + name, "float16", {"batch", "2", "total", "64"}});
  }
  return g;
}

Diagnostics admit_25(const GraphSpec& graph, const std::string& yaml = catalogue_text("25-gemma4-26b-a4b-moe-decoder.yaml")) {
  TempDir dir("admit25");
  dir.write("inference_metadata.yaml", yaml);
  dir.write("gemma4_26b_a4b/decoder.onnx.textproto", testing::graph_textproto(graph));
  return validate_package(dir.path()).diagnostics;
}

TEST(AdmissionTest, Example25AdmitsAMatchingGraph) { EXPECT_TRUE(admit_25(moe_decoder()).empty()) << admit_25(moe_decoder()).text(); }

TEST(AdmissionTest, EveryRuntimeInputMustBeBound) {
  GraphSpec g = moe_decoder();
  g.inputs.push_back({"attention_mask", "int64", {"batch", "total"}});
  EXPECT_TRUE(has(admit_25(g), "R3", "steps[0].inputs", "'attention_mask'")) << admit_25(g).text();
  g.inputs.pop_back();
  g.initializers.push_back({"attention_mask", "int64", {"1", "1"}});  // initializer-backed: may stay unbound
  g.inputs.push_back({"attention_mask", "int64", {"1", "1"}});
  EXPECT_TRUE(admit_25(g).empty()) << admit_25(g).text();
}

TEST(AdmissionTest, DeclaredPortsMustExist) {
  GraphSpec g = moe_decoder();
  g.inputs.erase(g.inputs.begin());  // no input_ids
  Diagnostics d = admit_25(g);
  EXPECT_TRUE(has(d, "R2", "ports.inputs.input_ids", "no input named 'input_ids'")) << d.text();
  EXPECT_TRUE(has(d, "R3", "steps[0].inputs.input_ids", "no input 'input_ids'")) << d.text();
}

TEST(AdmissionTest, KvPortsAreFloatTensorsOfRankThree) {
  GraphSpec g = moe_decoder();
  g.inputs[1].dtype = "int32";
  std::string yaml = catalogue_text("25-gemma4-26b-a4b-moe-decoder.yaml");
  yaml = testing::replace_all(yaml, "full_key: {dtype: float16", "full_key: {dtype: int32");
  EXPECT_TRUE(has(admit_25(g, yaml), "R5", "groups.full_attention.ports.decoder.full_key.input", "float16/float32/bfloat16"))
      << admit_25(g, yaml).text();
}

TEST(AdmissionTest, RequiredAliasingNeedsAnExplicitLengthKernel) {
  std::string yaml = replace_once(catalogue_text("25-gemma4-26b-a4b-moe-decoder.yaml"),
                                  "            kind: full_attention\n            sequence_axis: 2\n",
                                  "            kind: full_attention\n            sequence_axis: 2\n            aliasing: required\n");
  Diagnostics d = admit_25(moe_decoder(), yaml);
  EXPECT_TRUE(has(d, "R7", "groups.full_attention.aliasing", "maximum length")) << d.text();
  EXPECT_TRUE(has(d, "R7", "groups.full_attention.aliasing", "GroupQueryAttention")) << d.text();
  GraphSpec gqa = moe_decoder();
  gqa.ops.push_back("com.microsoft:GroupQueryAttention");
  std::string with_max = replace_once(yaml, "model:\n", "model:\n  max_sequence_length: 4096\n");
  EXPECT_TRUE(admit_25(gqa, with_max).empty()) << admit_25(gqa, with_max).text();
}

TEST(AdmissionTest, StaticCachePortsAreIntegers) {
  GraphSpec g;
  g.inputs = {{"input_ids", "int64", {"batch", "1"}}, {"past_cache", "float16", {"batch", "4", "2048", "32"}},
              {"write_indices", "float32", {"batch"}}, {"cache_lengths", "int64", {"batch"}}};
  g.outputs = {{"logits", "float16", {"batch", "1", "100"}}, {"present_cache", "float16", {"batch", "4", "2048", "32"}}};
  TempDir dir("admit18");
  std::string yaml = testing::replace_all(catalogue_text("18-static-cache-indexed-scatter.yaml"), "            write_indices:\n              dtype: int64",
                                          "            write_indices:\n              dtype: float32");
  dir.write("inference_metadata.yaml", yaml);
  dir.write("static_cache/decoder.onnx.textproto", testing::graph_textproto(g));
  Diagnostics d = validate_package(dir.path()).diagnostics;
  EXPECT_TRUE(has(d, "R8", "groups.static_cache.update", "'write_indices' must be an integer input")) << d.text();
}

std::string override_doc() {
  return "schema_version: v1\npipeline:\n  workflow:\n    manifest: {capabilities: [workflow_ssa, typed_emit]}\n"
         "    inputs:\n      logits: {contract: {dtype: float32, rank: 2, shape: [batch, vocab]}, role: {kind: opaque}, "
         "source: {kind: application, name: logits}}\n"
         "    outputs:\n      token: {contract: {dtype: int64, rank: 1, shape: [batch]}, role: tokens, stage: pre_adapter}\n"
         "    components:\n"
         "      sampler:\n        implementation: {kind: onnx, artifact: sampler.onnx.textproto}\n"
         "        contract: {id: vendor.sampler, version: '1', bindings: {scores: scores, token: token}}\n"
         "        application_overridable: true\n"
         "      greedy:\n        implementation: {kind: onnx, artifact: greedy.onnx.textproto}\n"
         "        contract: {id: vendor.sampler, version: '1', bindings: {scores: logits_in, token: out}}\n"
         "    steps:\n    - {kind: invoke, component: sampler, inputs: {scores: logits}, outputs: {token: sampled}}\n"
         "    - {kind: emit, value: sampled, output: token, mode: replace}\n";
}

Diagnostics admit_override(const std::string& yaml, const std::string& sampler_in, const std::string& greedy_out) {
  TempDir dir("override");
  dir.write("inference_metadata.yaml", yaml);
  GraphSpec sampler{{{"scores", sampler_in, {"batch", "vocab"}}}, {{"token", "int64", {"batch"}}}, {}, {}, {}};
  GraphSpec greedy{{{"logits_in", "float32", {"batch", "vocab"}}}, {{"out", greedy_out, {"batch"}}}, {}, {}, {}};
  dir.write("sampler.onnx.textproto", testing::graph_textproto(sampler));
  dir.write("greedy.onnx.textproto", testing::graph_textproto(greedy));
  return validate_package(dir.path()).diagnostics;
}

TEST(AdmissionTest, OverridableComponentsAndReplacements) {
  EXPECT_TRUE(admit_override(override_doc(), "float32", "int64").empty()) << admit_override(override_doc(), "float32", "int64").text();
  EXPECT_TRUE(has(admit_override(override_doc(), "float32", "int32"), "R4", "components.greedy.contract.bindings.token", "incompatible"));
  std::string lacking = replace_once(override_doc(), "bindings: {scores: logits_in, token: out}", "bindings: {scores: logits_in}");
  EXPECT_TRUE(has(admit_override(lacking, "float32", "int64"), "R4", "components.greedy", "lacks semantic port 'token'"));
  std::string uncovered = replace_once(override_doc(), "bindings: {scores: scores, token: token}", "bindings: {scores: scores}");
  EXPECT_TRUE(has(admit_override(uncovered, "float32", "int64"), "R4", "steps[0]", "port 'token'"));
}

TEST(AdmissionTest, ValuesBoundToInferredPortsMustFitTheGraph) {
  EXPECT_TRUE(has(admit_override(override_doc(), "int64", "int64"), "R2", "steps[0].inputs.scores", "does not fit"));
}

}  // namespace
}  // namespace ogai::metadata
