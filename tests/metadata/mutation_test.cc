// Mutation tests: each edits a valid document (catalogue or fixture text, in the test) so that
// exactly one V-* rule is broken, and checks that rule reports it at the right path.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::metadata {
namespace {

using testing::catalogue_text;
using testing::check;
using testing::erase_line;
using testing::fixture_text;
using testing::has;
using testing::replace_all;
using testing::replace_once;

struct Mutation {
  std::string label, text, rule, path;
};

void expect_all(const std::vector<Mutation>& cases) {
  for (const auto& m : cases) {
    Diagnostics d = check(m.text);
    EXPECT_TRUE(has(d, m.rule, m.path)) << m.label << ": expected " << m.rule << " at '" << m.path << "', got:\n" << d.text();
  }
}

const std::string& ex23() {
  static const std::string text = catalogue_text("23-gemma4-e2b-decoder.yaml");
  return text;
}
const std::string& decoder() {
  static const std::string text = fixture_text("decoder");
  return text;
}
const std::string& speculative() {
  static const std::string text = fixture_text("speculative");
  return text;
}
const std::string& static_cache() {
  static const std::string text = fixture_text("static_cache");
  return text;
}

TEST(MutationTest, BaseDocumentsAreValid) {
  for (const std::string* text : {&ex23(), &decoder(), &speculative(), &static_cache()})
    EXPECT_TRUE(check(*text).empty()) << check(*text).text();
}

TEST(MutationTest, Capabilities) {
  expect_all({
      {"missing emit_valid_length", erase_line(decoder(), "      - emit_valid_length"), "V-CAP", "manifest.capabilities"},
      {"missing bounded recurrence", erase_line(decoder(), "      - bounded_state_recurrence"), "V-CAP", "manifest.capabilities"},
      {"missing nested control flow", erase_line(decoder(), "      - nested_control_flow"), "V-CAP", "manifest.capabilities"},
  });
  EXPECT_TRUE(check("required_capabilities: [kv_cache, vendor.custom_thing]\n" + ex23()).empty());
}

TEST(MutationTest, Types) {
  expect_all({
      {"shape shorter than rank", replace_once(ex23(), "contract: {dtype: int64, rank: 2, shape: [batch, sequence]",
                                               "contract: {dtype: int64, rank: 2, shape: [batch]"),
       "V-TYPE", "inputs.request.input_ids.contract.shape"},
      {"unknown dtype", replace_once(ex23(), "contract: {dtype: bool,", "contract: {dtype: boolean,"), "V-TYPE",
       "inputs.request.active.contract.dtype"},
      {"expanded factor 0", replace_once(ex23(), "batch_layout: {kind: request_aligned, axis: 0}",
                                         "batch_layout: {kind: request_expanded, axis: 0, factor: 0}"),
       "V-TYPE", "batch_layout.factor"},
      {"axis outside rank", replace_once(ex23(), "batch_layout: {kind: request_aligned, axis: 0}",
                                         "batch_layout: {kind: request_aligned, axis: 3}"),
       "V-TYPE", "batch_layout.axis"},
  });
}

TEST(MutationTest, Inputs) {
  expect_all({
      {"request input with opaque role", replace_once(ex23(), "role: {kind: runtime, version: '1.0', role: prompt_tokens}",
                                                      "role: {kind: opaque}"),
       "V-IN", "inputs.request.input_ids.role"},
      {"optional without default", erase_line(decoder(), "        default: -1"), "V-IN", "inputs.request.prompt_lengths"},
  });
}

TEST(MutationTest, Outputs) {
  const std::string tensor = "        role: tensor\n        stage: pre_adapter\n";
  expect_all({
      {"media on a tensor", replace_once(ex23(), tensor, tensor + "        media: {container: raw, encoding: pcm_s16_le}\n"),
       "V-OUT", "outputs.logits.media"},
      {"image without range", replace_once(ex23(), "role: tensor", "role: image"), "V-OUT", "outputs.logits.value_range"},
      {"range on a tensor", replace_once(ex23(), tensor, tensor + "        value_range: zero_to_one\n"), "V-OUT",
       "outputs.logits.value_range"},
  });
}

TEST(MutationTest, Components) {
  expect_all({
      {"dotted name", replace_once(ex23(), "      decoder:\n        implementation", "      decoder.main:\n        implementation"),
       "V-COMP", "components.decoder.main"},
      {"empty artifact", replace_once(ex23(), "artifact: gemma4_e2b/decoder.onnx.textproto", "artifact: ''"), "V-COMP",
       "implementation.artifact"},
      {"overridable without contract", replace_once(ex23(), "      decoder:\n", "      decoder:\n        application_overridable: true\n"),
       "V-COMP", "components.decoder.application_overridable"},
      {"sampler binding set", erase_line(decoder(), "            next_counter: next_counter"), "V-COMP",
       "components.token_sampler.contract.bindings"},
      {"binding to an undeclared port", replace_once(decoder(), "            counter: counter\n", "            counter: rng\n"),
       "V-COMP", "token_sampler.contract.bindings.counter"},
      {"adapter not pinned", erase_line(speculative(), "        onnx-genai.grammar-guidance: '1'"), "V-COMP",
       "components.grammar_clone.implementation"},
      {"unknown grammar action", replace_once(speculative(), "action: clone", "action: fork"), "V-COMP",
       "grammar_clone.contract.parameters.action"},
  });
}

TEST(MutationTest, Invokes) {
  expect_all({
      {"float bound to int64", replace_once(ex23(), "        input_ids: request.input_ids\n", "        input_ids: request.full_key_0\n"),
       "V-INVOKE", "steps[0].inputs.input_ids"},
      {"unknown component", replace_once(ex23(), "component: decoder", "component: ghost"), "V-INVOKE", "steps[0].component"},
      {"undefined value", replace_once(ex23(), "        input_ids: request.input_ids\n", "        input_ids: request.nothing\n"),
       "V-INVOKE", "steps[0].inputs.input_ids"},
      {"required port unbound", erase_line(ex23(), "sliding_value_0: request.sliding_value_0"), "V-INVOKE", "steps[0].inputs"},
      {"redefinition", replace_once(ex23(), "logits: decoder.logits", "logits: request.input_ids"), "V-INVOKE",
       "steps[0].outputs.logits"},
      {"undeclared port", replace_once(ex23(), "        input_ids: request.input_ids\n",
                                       "        input_ids: request.input_ids\n        bogus: request.input_ids\n"),
       "V-INVOKE", "steps[0].inputs.bogus"},
      {"output named like a cell", replace_once(ex23(), "logits: decoder.logits", "logits: full_key_0"), "V-INVOKE",
       "steps[0].outputs.logits"},
  });
}

TEST(MutationTest, Loops) {
  expect_all({
      {"continue_when from the body", replace_once(decoder(), "continue_when: active", "continue_when: loop.next_active"),
       "V-LOOP", "steps[0].continue_when"},
      {"max_iterations not an integer", replace_once(decoder(), "      max_iterations: request.max_iterations\n      carried:",
                                                     "      max_iterations: package.active\n      carried:"),
       "V-LOOP", "steps[0].max_iterations"},
      {"unknown carried cell", replace_once(decoder(), "      - cell: token\n", "      - cell: tokenx\n"), "V-LOOP",
       "steps[0].carried[0].cell"},
      {"next not from the body", replace_once(decoder(), "next: token.body", "next: request.input_ids"), "V-LOOP",
       "steps[0].carried[0].next"},
      {"incompatible initial", replace_once(decoder(), "      - cell: token\n        next: token.body",
                                            "      - cell: token\n        initial: request.temperature\n        next: token.body"),
       "V-LOOP", "steps[0].carried[0].initial"},
      {"iteration not int64", replace_once(decoder(), "value: loop.iteration\n        contract:\n          dtype: int64",
                                           "value: loop.iteration\n        contract:\n          dtype: int32"),
       "V-LOOP", "steps[0].iteration.contract"},
  });
}

TEST(MutationTest, Sequences) {
  std::string package = fixture_text("validator_package");
  expect_all({
      {"empty root", replace_once(package, "    steps:\n      - kind: invoke\n        component: identity\n", "    steps: []\n"),
       "V-SEQ", "pipeline.workflow.steps"},
      {"empty sequence", replace_once(package, "      - kind: invoke\n        component: identity\n",
                                      "      - kind: sequence\n        steps: []\n      - kind: invoke\n        component: identity\n"),
       "V-SEQ", "steps[0].steps"},
  });
}

TEST(MutationTest, Emits) {
  const std::string eos_output = "    outputs:\n      eos:\n        contract: {dtype: int64, rank: 1, shape: [E]}\n"
                                 "        role: tensor\n        stage: pre_adapter\n";
  std::string shared_emit = replace_once(decoder(), "    outputs:\n", eos_output);
  shared_emit = replace_once(shared_emit, "package:\n  tokenizer:",
                             "    - kind: emit\n      value: package.eos_ids\n      output: eos\n      mode: replace\npackage:\n  tokenizer:");
  expect_all({
      {"undeclared output", replace_once(ex23(), "output: logits", "output: scores"), "V-EMIT", "steps[1].output"},
      {"valid_length into a shared output",
       replace_once(decoder(), "          - generated_sequence\n          batch_layout:\n            kind: request_aligned\n            axis: 0\n",
                    "          - generated_sequence\n"),
       "V-EMIT", "steps[0]"},
      {"when not bool", replace_once(decoder(), "when: active", "when: cache_lengths"), "V-EMIT", "steps[0].steps[8].when"},
      {"modes disagree", replace_once(ex23(), "      mode: replace\n",
                                      "      mode: replace\n    - kind: emit\n      value: decoder.logits\n      output: logits\n      mode: append\n"),
       "V-EMIT", "steps[2].mode"},
      {"shared value from a serving workflow", shared_emit, "V-EMIT", "steps[1].value"},
  });
}

TEST(MutationTest, State) {
  const std::string session = "        service_group: full_attention\n";
  expect_all({
      {"recurrence axis differs from the group", replace_once(decoder(), "kind: bounded\n          axis: 2", "kind: bounded\n          axis: 1"),
       "V-STATE", "state.cache_0.recurrence.axis"},
      {"unknown group", replace_once(ex23(), "service_group: full_attention", "service_group: global"), "V-STATE",
       "state.full_key_0.service_group"},
      {"session lease on invocation scope", replace_once(ex23(), session, session + "        session: {policy: exclusive}\n"),
       "V-STATE", "state.full_key_0.session"},
      {"copy_on_write", replace_once(ex23(), session, session + "        session: {policy: copy_on_write}\n"), "V-STATE",
       "session.policy"},
      {"bound cell not request-aligned",
       replace_once(ex23(), "full_head_dim], batch_layout: {kind: request_aligned, axis: 0}}\n        scope: invocation",
                    "full_head_dim]}\n        scope: invocation"),
       "V-STATE", "state.full_key_0.contract.batch_layout"},
      {"growing increment is not accepted_len",
       replace_once(decoder(), "kind: bounded\n          axis: 2\n          max: package.max_context",
                    "kind: growing\n          axis: 2\n          increment: package.one_token\n          max: package.max_context"),
       "V-STATE", "state.cache_0.recurrence.increment"},
  });
}

TEST(MutationTest, Lifecycle) {
  std::string no_checkpoint = replace_once(static_cache(), "            checkpoint:\n              adapter: onnx-genai.kv-checkpoint\n"
                                                           "              version: '1'\n", "");
  expect_all({
      {"workflow cell with a release boundary",
       replace_once(decoder(), "        initializer: initializer.token_slot\n",
                    "        initializer: initializer.token_slot\n        release_boundary: invocation\n"),
       "V-LIFE", "state.token.release_boundary"},
      {"emitted runtime cell without checkpoint", no_checkpoint, "V-LIFE", "state.key_cache"},
      {"session boundary on invocation scope", replace_once(ex23(), "release_boundary: invocation", "release_boundary: session"),
       "V-LIFE", "state.full_key_0.release_boundary"},
  });
}

TEST(MutationTest, Groups) {
  std::string ex20 = catalogue_text("20-qwen3_5-hybrid-speculative-decoding.yaml");
  expect_all({
      {"empty layout", replace_once(ex23(), "layout: bnsh", "layout: ''"), "V-GROUP", "groups.full_attention.layout"},
      {"logical_lengths not a cell", replace_once(static_cache(), "logical_lengths: cache_lengths", "logical_lengths: nothing"),
       "V-GROUP", "groups.decoder_cache.logical_lengths"},
      {"cascade to an unknown group", replace_once(ex20, "cascade: [linear_recurrence, causal_conv]", "cascade: [linear_recurrence, ghost]"),
       "V-GROUP", "groups.attention_kv.capabilities.cascade"},
      {"rollback 0", replace_once(catalogue_text("24-gemma4-e2b-assistant-speculative.yaml"), "rollback_positions: 4", "rollback_positions: 0"),
       "V-GROUP", "groups.full_attention.capabilities.rollback_positions"},
      {"alias of another group's cell", replace_once(ex23(), "full_key_0: {input: full_key_0", "sliding_key_0: {input: full_key_0"),
       "V-GROUP", "groups.full_attention.ports.decoder.sliding_key_0"},
      {"alias input not a port", replace_once(ex23(), "{input: full_key_0, output", "{input: past_0, output"), "V-GROUP",
       "ports.decoder.full_key_0.input"},
      {"unknown component", replace_once(ex23(), "            ports:\n              decoder:", "            ports:\n              ghost:"),
       "V-GROUP", "groups.full_attention.ports.ghost"},
      {"state port with a role", replace_once(ex23(), "roles: {input_ids: token_ids, logits: logits}",
                                              "roles: {input_ids: token_ids, logits: logits, next_full_key_0: hidden_states}"),
       "V-GROUP", "ports.decoder.full_key_0"},
  });
}

TEST(MutationTest, Updates) {
  std::string ex18 = catalogue_text("18-static-cache-indexed-scatter.yaml");
  std::string ex20 = catalogue_text("20-qwen3_5-hybrid-speculative-decoding.yaml");
  expect_all({
      {"append without sequence_axis", erase_line(ex23(), "sequence_axis: 2"), "V-UPDATE", "groups.full_attention.sequence_axis"},
      {"replace with sequence_axis", replace_once(ex20, "            kind: recurrent\n            layout: bhfv",
                                                  "            kind: recurrent\n            sequence_axis: 1\n            layout: bhfv"),
       "V-UPDATE", "groups.linear_recurrence.sequence_axis"},
      {"capacity not a scalar", replace_once(ex18, "capacity: package.capacity", "capacity: request.cache_lengths"), "V-UPDATE",
       "update.capacity"},
      {"write_indices not a cell", replace_once(ex18, "write_indices: write_indices\n", "write_indices: request.write_indices\n"),
       "V-UPDATE", "update.write_indices"},
  });
}

TEST(MutationTest, Layers) {
  std::string no_layers = replace_all(replace_all(ex23(), ", layer: 1}", "}"), ", layer: 0}", "}");
  expect_all({
      {"two keys without layer", no_layers, "V-LAYER", "groups.full_attention.ports.decoder"},
      {"key and value layers differ",
       replace_once(ex23(), "output: next_full_value_1, role: value, layer: 1}", "output: next_full_value_1, role: value, layer: 2}"),
       "V-LAYER", "groups.full_attention.ports.decoder"},
  });
}

TEST(MutationTest, Serving) {
  expect_all({
      {"active undefined", replace_once(ex23(), "active: request.active\n      done", "active: request.nope\n      done"), "V-SERVE",
       "serving.active"},
      {"done not bool", replace_once(ex23(), "done: request.done\n      accepted_len", "done: request.accepted_len\n      accepted_len"),
       "V-SERVE", "serving.done"},
  });
}

TEST(MutationTest, EffectsAndRows) {
  expect_all({
      {"undeclared effect domain", replace_once(speculative(), "        effects:\n        - grammar\n", "        effects:\n        - parser\n"),
       "V-EFFECT", "components.grammar_clone.effects"},
      {"rewindable depth 0", replace_once(speculative(), "max_depth: 8", "max_depth: 0"), "V-EFFECT", "effects.grammar"},
      {"row_scope axis off the request axis", replace_once(speculative(), "        row_scope:\n          axis: 0", "        row_scope:\n          axis: 1"),
       "V-ROW", "components.grammar_clone.row_scope.axis"},
      {"effects without row_scope", replace_once(speculative(), "        row_scope:\n          axis: 0\n          stateful: true\n", ""),
       "V-ROW", "components.grammar_clone.row_scope"},
  });
}

TEST(MutationTest, Generation) {
  expect_all({
      {"override bound to a literal", replace_once(decoder(), "input: request.seed", "input: package.zero_batch"), "V-GEN",
       "generation.overrides.seed.input"},
      {"unknown override input", replace_once(decoder(), "input: request.seed", "input: request.nope"), "V-GEN",
       "generation.overrides.seed.input"},
      {"minimum above maximum", replace_once(decoder(), "      input: request.top_k\n",
                                             "      input: request.top_k\n      constraint: {minimum: 10, maximum: 1}\n"),
       "V-GEN", "generation.overrides.top_k.constraint"},
      {"negative temperature", replace_once(decoder(), "generation:\n", "generation:\n  defaults: {temperature: -1.0}\n"), "V-GEN",
       "generation.defaults.temperature"},
  });
}

TEST(MutationTest, Profiles) {
  expect_all({
      {"unknown required kind", ex23() + "profiles: {p: {kind: telepathy, version: '1'}}\n", "V-PROFILE", "profiles.p.kind"},
      {"unknown output", ex23() + "profiles: {g: {kind: generation, version: '1', outputs: {logits: nope}}}\n", "V-PROFILE",
       "profiles.g.outputs.logits"},
      {"transcription without decoding", ex23() + "profiles: {t: {kind: transcription, version: '1'}}\n", "V-PROFILE",
       "profiles.t.decoding"},
      {"ctc without blank", ex23() + "profiles: {t: {kind: transcription, version: '1', decoding: {kind: ctc, time_axis: 1, class_axis: 2}}}\n",
       "V-PROFILE", "profiles.t.decoding.blank_id"},
      {"time axis equals class axis",
       ex23() + "profiles: {t: {kind: transcription, version: '1', decoding: {kind: ctc, blank_id: 0, time_axis: 2, class_axis: 2}}}\n",
       "V-PROFILE", "profiles.t.decoding"},
  });
  EXPECT_TRUE(check(ex23() + "profiles: {p: {kind: telepathy, version: '1', requirement: ignorable}}\n").empty());
}

TEST(MutationTest, Preprocessing) {
  std::string adapter = "      image_preprocess:\n        implementation: {kind: adapter, abi: onnx-genai.image-preprocess, version: '1'}\n"
                        "        ports:\n          inputs:\n            encoded: {dtype: int8, rank: 1, shape: [encoded_bytes]}\n"
                        "          outputs:\n            pixel_values: {dtype: float32, rank: 4, shape: [1, 3, h, w]}\n";
  std::string with_adapter = replace_once(ex23(), "    components:\n", "    components:\n" + adapter);
  with_adapter = replace_once(with_adapter, "    manifest:\n", "    manifest:\n      adapter_abis: {onnx-genai.image-preprocess: '1'}\n");
  expect_all({
      {"program without adapter", ex23() + "preprocessing: {image: {transforms: []}}\n", "V-PREPROC", "pipeline.workflow.components"},
      {"adapter: encoded not uint8, never invoked", with_adapter + "preprocessing: {image: {transforms: []}}\n", "V-PREPROC",
       "components.image_preprocess"},
  });
}

TEST(MutationTest, Adapters) {
  std::string caps = replace_once(ex23(), "capabilities: [workflow_ssa, typed_emit, serving_service_contract]",
                                  "capabilities: [workflow_ssa, typed_emit, serving_service_contract, parameter_adapters, "
                                  "heterogeneous_adapter_batching]");
  std::string adapters =
      "adapters:\n  target_manifest:\n    targets:\n    - {id: q0, component: decoder, initializer: w.q0, node_name: q0, "
      "output_name: q0_out, activation_dtype: float16, input_features: 8, output_features: 8}\n"
      "  selection: {segments: request.adapter_segments, adapter_counts: request.adapter_counts, scales: request.adapter_scales, "
      "max_adapters: 2}\n  application_capability: onnx-genai.adapters\n  artifacts:\n    style:\n      index: 0\n"
      "      identity: style\n      version: '1'\n      rank: 4\n      alpha: 8.0\n      dtype: float16\n"
      "      weights: [{location: adapters/style/adapter.json, loader_capability: onnx-genai.adapters.json, scale_encoding: alpha_over_rank}]\n"
      "      bindings: [{target: q0, weight_key: q0}]\n";
  std::string valid = caps + adapters;
  ASSERT_TRUE(check(valid).empty()) << check(valid).text();
  expect_all({
      {"missing capabilities", ex23() + adapters, "V-CAP", "manifest.capabilities"},
      {"max_adapters 0", replace_once(valid, "max_adapters: 2", "max_adapters: 0"), "V-ADAPTER", "adapters.selection.max_adapters"},
      {"index gap", replace_once(valid, "      index: 0\n", "      index: 1\n"), "V-ADAPTER", "adapters.artifacts"},
      {"unknown target", replace_once(valid, "{target: q0,", "{target: k0,"), "V-ADAPTER", "adapters.artifacts.style.bindings"},
      {"weight outside its folder", replace_once(valid, "location: adapters/style/adapter.json", "location: other/adapter.json"),
       "V-ADAPTER", "weights[0].location"},
      {"hf_peft without config", replace_once(valid, "scale_encoding: alpha_over_rank}", "scale_encoding: alpha_over_rank, format: hf_peft}"),
       "V-ADAPTER", "weights[0].config_location"},
      {"retired selection slot_ids", replace_once(valid, "max_adapters: 2}", "max_adapters: 2, slot_ids: s}"), "P",
       "adapters.selection.slot_ids"},
  });
}

TEST(MutationTest, Speculative) {
  expect_all({
      {"unsafe effect in the speculative loop", replace_once(speculative(), "          kind: rewindable\n          max_depth: 8", "          kind: none"),
       "V-SPEC", "effects.grammar.speculation_safety"},
      {"shallow rewind", replace_once(speculative(), "max_depth: 8", "max_depth: 4"), "V-SPEC", "effects.grammar.speculation_safety"},
      {"unknown proposer", replace_once(speculative(), "  proposer: proposer", "  proposer: drafter"), "V-SPEC", "speculative.proposer"},
      {"rollback cell unknown", replace_once(speculative(), "  - cache_1\n  - grammar", "  - cache_1\n  - grammer"), "V-SPEC",
       "speculative.rollback_state"},
      {"no workflow", "speculative: {proposer: a, target: b, vocabulary: {kind: identical}, max_proposal_width: 2}\n", "V-SPEC",
       "speculative"},
  });
}

TEST(MutationTest, LegacyModelIo) {
  std::string legacy = "model:\n  io:\n    token_input: input_ids\n    kv_inputs: [past.0.key, past.0.value]\n"
                       "    kv_outputs: [present.0.key]\n";
  expect_all({{"kv lists differ", legacy, "V-ABI", "model.io.kv_outputs"},
              {"sequence source without its port", "model:\n  io: {sequence_source: inputs_embeds, token_input: ids}\n", "V-ABI",
               "model.io.inputs_embeds_input"}});
}

TEST(MutationTest, ServingWithoutGroups) {
  std::string text = ex23();
  auto at = text.find("      state_service:\n");
  ASSERT_NE(at, std::string::npos);
  text = text.substr(0, at) + "      state_service: {groups: {}}\n";
  expect_all({{"no groups", text, "V-SERVE", "serving.state_service.groups"}});
}

TEST(MutationTest, SlidingWindowZero) {
  expect_all({{"sliding_window 0", "model: {attention: {type: gqa, sliding_window: 0}}\n" + ex23(), "R7", "model.attention.sliding_window"}});
}

}  // namespace
}  // namespace ogai::metadata
