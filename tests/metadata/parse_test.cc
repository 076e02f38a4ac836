// Strict reading (rule P): closed structs, retired fields named, wrong types and vocabularies,
// all collected in one pass with document paths.
#include <gtest/gtest.h>

#include "metadata/parse.h"
#include "ogai/error.h"
#include "support.h"

namespace ogai::metadata {
namespace {

using testing::catalogue_text;
using testing::check;
using testing::erase_line;
using testing::has;
using testing::replace_once;

const std::string k23 = "23-gemma4-e2b-decoder.yaml";

TEST(ParseTest, ReadsTheTypedDocument) {
  Diagnostics d;
  Document doc = parse_document_text(catalogue_text(k23), "23.yaml", d);
  ASSERT_TRUE(d.empty()) << d.text();
  ASSERT_TRUE(doc.workflow);
  EXPECT_EQ(doc.schema_version, "v1");
  const Workflow& wf = *doc.workflow;
  EXPECT_EQ(wf.manifest.capabilities.size(), 3u);
  const Component* decoder = find_named(wf.components, "decoder");
  ASSERT_NE(decoder, nullptr);
  EXPECT_EQ(decoder->implementation.artifact, "gemma4_e2b/decoder.onnx.textproto");
  EXPECT_EQ(decoder->ports.inputs.size(), 7u);
  EXPECT_EQ(*find_named(decoder->ports.roles, "input_ids"), PortRole::kTokenIds);
  const StateCell* cell = find_named(wf.state, "sliding_value_0");
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(cell->management, StateManagement::kRuntime);
  EXPECT_EQ(cell->service_group, "sliding_attention");
  ASSERT_EQ(cell->contract.shape->size(), 4u);
  EXPECT_EQ((*cell->contract.shape)[3].symbol, "sliding_head_dim");
  ASSERT_TRUE(wf.serving);
  const StateGroup* sliding = find_named(wf.serving->groups, "sliding_attention");
  ASSERT_NE(sliding, nullptr);
  EXPECT_TRUE(sliding->evictable_prefix);
  EXPECT_EQ(sliding->update->kind, StateUpdate::Kind::kAppend);
  const StateAlias* alias = find_named(*find_named(sliding->ports, "decoder"), "sliding_key_0");
  EXPECT_EQ(alias->output, "next_sliding_key_0");
  EXPECT_EQ(alias->role, KvRole::kKey);
  ASSERT_EQ(wf.steps.size(), 2u);
  EXPECT_EQ(std::get<EmitStep>(wf.steps[1].body).output, "logits");
  EXPECT_EQ(wf.steps[1].path, "pipeline.workflow.steps[1]");
}

TEST(ParseTest, ReadsSpeculativeAndMoeSections) {
  Diagnostics d;
  Document spec = parse_document_text(catalogue_text("24-gemma4-e2b-assistant-speculative.yaml"), "24.yaml", d);
  ASSERT_TRUE(spec.speculative);
  const auto& ch = *spec.speculative->chained;
  EXPECT_EQ(ch.token_embedding_input, "inputs_embeds");
  EXPECT_EQ(ch.folded_carry_output, "next_projected_state");
  EXPECT_EQ(ch.folded_carry_seed->second, "hidden");
  EXPECT_EQ(ch.token_embedding->second, "model.embed_tokens.weight");
  EXPECT_EQ(spec.speculative->max_proposal_width, 4);
  EXPECT_TRUE(spec.speculative->distribution_preserving);
  EXPECT_EQ(spec.speculative->rollback_state.size(), 6u);
  Document moe = parse_document_text(catalogue_text("25-gemma4-26b-a4b-moe-decoder.yaml"), "25.yaml", d);
  ASSERT_TRUE(moe.model && moe.model->mixture_of_experts);
  EXPECT_EQ(moe.model->mixture_of_experts->routed_expert_count, 128);
  EXPECT_EQ(moe.model->mixture_of_experts->router["score_function"], "softmax");
  EXPECT_EQ(moe.model->sharding["expert_parallel"]["expert_count"], 128);
  EXPECT_TRUE(d.empty()) << d.text();
}

TEST(ParseTest, UnknownKeysEverywhereAreReportedTogether) {
  std::string text = catalogue_text(k23);
  text = replace_once(text, "        scope: invocation\n", "        scope: invocation\n        colour: blue\n");
  text = replace_once(text, "      mode: replace\n", "      mode: replace\n      flush: true\n");
  text += "speculative: {num_speculative_tokens: 4}\n";
  Diagnostics d = check(text);
  EXPECT_TRUE(has(d, "P", "pipeline.workflow.state.full_key_0.colour", "unknown key 'colour'")) << d.text();
  EXPECT_TRUE(has(d, "P", "pipeline.workflow.steps[1].flush", "unknown key")) << d.text();
  EXPECT_TRUE(has(d, "P", "speculative.num_speculative_tokens", "unknown key")) << d.text();
  EXPECT_TRUE(has(d, "P", "speculative.proposer", "required key is missing")) << d.text();
}

// A context of 10^12 once validated (issue 37): above int32 positions it is refused by name.
TEST(ParseTest, MaxSequenceLengthIsBoundedByInt32Positions) {
  const std::string base = catalogue_text(k23);
  ASSERT_EQ(base.find("\nmodel:"), std::string::npos);  // the section is added below
  Diagnostics big = check(base + "model:\n  max_sequence_length: 1000000000000\n");
  EXPECT_TRUE(has(big, "P", "model.max_sequence_length", "above the largest context")) << big.text();
  Diagnostics fine = check(base + "model:\n  max_sequence_length: 2147483647\n");
  EXPECT_FALSE(has(fine, "P", "model.max_sequence_length", "")) << fine.text();
}

TEST(ParseTest, RetiredFieldsAreNamed) {
  std::string base = catalogue_text(k23);
  struct Case {
    std::string text, path;
  };
  std::vector<Case> cases = {
      {base + "kv_cache: {dtype: fp16}\n", "kv_cache"},
      {base + "strategy: {kind: greedy}\n", "strategy"},
      {base + "speculator_config: {}\n", "speculator_config"},
      {replace_once(base, "      accepted_len: request.accepted_len\n",
                    "      accepted_len: request.accepted_len\n      slot_ids: request.slots\n"), "serving.slot_ids"},
      {replace_once(base, "      mode: replace\n", "      mode: replace\n      row_ids: rows\n"), "steps[1].row_ids"},
      {replace_once(base, "      capabilities: [workflow_ssa", "      ir_version: 9\n      capabilities: [workflow_ssa"),
       "manifest.ir_version"},
      {replace_once(base, "        implementation: {kind: onnx, artifact: gemma4_e2b/decoder.onnx.textproto}",
                    "        implementation: {kind: onnx, artifact: gemma4_e2b/decoder.onnx.textproto, sha256: abc}"),
       "implementation.sha256"},
      {replace_once(base, "pipeline:\n", "pipeline:\n  models: {}\n"), "pipeline.models"},
  };
  for (const auto& c : cases) {
    Diagnostics d = check(c.text);
    EXPECT_TRUE(has(d, "P", c.path, "retired field")) << c.path << "\n" << d.text();
  }
}

TEST(ParseTest, AuthoredTransferStepsAreRejected) {
  std::string text = replace_once(catalogue_text(k23), "    - kind: emit\n", "    - kind: transfer\n      input: a\n      output: b\n    - kind: emit\n");
  Diagnostics d = check(text);
  EXPECT_TRUE(has(d, "P", "steps[1].kind", "authored 'transfer' steps")) << d.text();
}

TEST(ParseTest, WrongTypesAndVocabulariesAreRejected) {
  std::string base = catalogue_text(k23);
  auto expect = [&](const std::string& text, const std::string& path, const std::string& message) {
    Diagnostics d = check(text);
    EXPECT_TRUE(has(d, "P", path, message)) << path << "\n" << d.text();
  };
  expect(replace_once(base, "sequence_axis: 2\n            layout: bnsh\n            update: {kind: append}\n            reuse: {prefix_reusable: true, evictable_prefix: false}",
                      "sequence_axis: two\n            layout: bnsh\n            update: {kind: append}\n            reuse: {prefix_reusable: true, evictable_prefix: false}"),
         "groups.full_attention.sequence_axis", "expected a integer");
  expect(replace_once(base, "kind: full_attention", "kind: global_attention"), "groups.full_attention.kind",
         "'global_attention' is not one of");
  expect(replace_once(base, "roles: {input_ids: token_ids, logits: logits}", "roles: {input_ids: tokens, logits: logits}"),
         "ports.roles.input_ids", "'tokens' is not one of");
  expect(replace_once(base, "        scope: invocation\n", "        scope: [invocation]\n"), "state.full_key_0.scope",
         "expected a string, got sequence");
  expect(replace_once(base, "layer: 1}", "layer: -1}"), "full_key_1.layer", "below the minimum 0");
  expect(replace_once(base, "shape: [batch, sequence], batch_layout", "shape: [batch, -2], batch_layout"),
         "request.input_ids.contract.shape[1]", "non-negative integer");
  expect(replace_once(base, "version: '1.0'", "version: 1.0"), "role.version", "expected a string, got number 1.0");
  expect("- just\n- a list\n", "", "must be a mapping");
}

TEST(ParseTest, ReadsJsonDocuments) {
  Diagnostics d;
  Document doc = parse_document_text(
      R"({"schema_version": "v1", "pipeline": {"workflow": {"manifest": {"capabilities": ["workflow_ssa"]},
         "components": {"id": {"implementation": {"kind": "onnx", "artifact": "id.onnx"}}},
         "steps": [{"kind": "invoke", "component": "id"}]}}})", "m.json", d);
  EXPECT_TRUE(d.empty()) << d.text();
  ASSERT_TRUE(doc.workflow);
  EXPECT_EQ(doc.workflow->components[0].first, "id");
}

TEST(ParseTest, ReadsLegacyModelIo) {
  Diagnostics d;
  Document doc = parse_document_text(
      "model:\n  max_sequence_length: 256\n  io:\n    token_input: input_ids\n    attention_mask_input: attention_mask\n"
      "    logits_output: logits\n    hidden_output: hidden_states.0\n    kv_inputs: [past.0.key, past.0.value]\n"
      "    kv_outputs: [present.0.key, present.0.value]\n", "legacy.yaml", d);
  ASSERT_TRUE(d.empty()) << d.text();
  ASSERT_TRUE(doc.model && doc.model->io);
  EXPECT_EQ(doc.model->io->hidden_output, "hidden_states.0");
  EXPECT_EQ(doc.model->io->kv_outputs.size(), 2u);
  EXPECT_EQ(doc.model->max_sequence_length, 256);
}

TEST(ParseTest, ModelSectionIsClosedToo) {
  Diagnostics d = check(catalogue_text(k23) + "model:\n  attention: {type: gqa, window: 4}\n  hidden_size: 8\n");
  EXPECT_TRUE(has(d, "P", "model.attention.window", "unknown key")) << d.text();
  EXPECT_TRUE(has(d, "P", "model.hidden_size", "unknown key")) << d.text();
}

}  // namespace
}  // namespace ogai::metadata
