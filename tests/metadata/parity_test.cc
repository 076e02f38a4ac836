// Validator parity with the reference validator (issue 34 item 1): the six places where ogai
// rejected documents the reference accepts, each with its accepted form and the nearest form both
// still reject. Documents are small YAML strings (facts of the v1 standard) or catalogue/fixture
// documents with one edit.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::metadata {
namespace {

using testing::catalogue_text;
using testing::check;
using testing::fixture_text;
using testing::has;
using testing::replace_once;

// ---- 1. media encodings use the schema's snake_case -----------------------------------------

TEST(ParityTest, MediaEncodingIsTheSchemaSnakeCase) {
  const std::string wav = fixture_text("speech_wav");
  ASSERT_NE(wav.find("encoding: pcm_s16_le"), std::string::npos);
  Diagnostics s16 = check(wav);
  EXPECT_TRUE(s16.empty()) << s16.text();
  Diagnostics f32 = check(replace_once(wav, "encoding: pcm_s16_le", "encoding: pcm_f32_le"));
  EXPECT_TRUE(f32.empty()) << f32.text();
  // The reference's enum has no other spelling: the unseparated forms are unknown values.
  for (const char* old : {"pcm_s16le", "pcm_f32le"}) {
    Diagnostics d = check(replace_once(wav, "encoding: pcm_s16_le", std::string("encoding: ") + old));
    EXPECT_TRUE(has(d, "P", "media.encoding", "pcm_s16_le")) << old << "\n" << d.text();
  }
}

// ---- 2-4. loops: setup scope, carry next, growing cells ---------------------------------------

const std::string kRow = "{dtype: float32, rank: 2, shape: [batch, 4], batch_layout: {kind: request_aligned, axis: 0}}";
const std::string kScalar = "{dtype: int64, rank: 0, shape: []}";
const std::string kFlag = "{dtype: bool, rank: 0, shape: []}";

// A loop whose setup computes the start value `seed.state`, whose body steps the carried cell
// `acc`, and whose result (the cell's final value) is emitted after the loop.
std::string loop_document() {
  return "schema_version: v1\n"
         "pipeline:\n"
         "  workflow:\n"
         "    manifest:\n"
         "      capabilities: [workflow_ssa, typed_emit, nested_control_flow]\n"
         "    inputs:\n"
         "      prompt:\n"
         "        contract: " + kRow + "\n"
         "        role: {kind: opaque}\n"
         "        source: {kind: application, name: prompt}\n"
         "      package.trips:\n"
         "        contract: " + kScalar + "\n"
         "        role: {kind: opaque}\n"
         "        source: {kind: literal}\n"
         "        required: false\n"
         "        default: 3\n"
         "      package.go:\n"
         "        contract: " + kFlag + "\n"
         "        role: {kind: opaque}\n"
         "        source: {kind: literal}\n"
         "        required: false\n"
         "        default: true\n"
         "    outputs:\n"
         "      result:\n"
         "        contract: " + kRow + "\n"
         "        role: tensor\n"
         "        stage: pre_adapter\n"
         "    components:\n"
         "      seed:\n"
         "        implementation: {kind: onnx, artifact: seed.onnx}\n"
         "        ports:\n"
         "          inputs: {prompt: " + kRow + "}\n"
         "          outputs: {state: " + kRow + "}\n"
         "      step:\n"
         "        implementation: {kind: onnx, artifact: step.onnx}\n"
         "        ports:\n"
         "          inputs: {state: " + kRow + "}\n"
         "          outputs: {state: " + kRow + "}\n"
         "    state:\n"
         "      acc:\n"
         "        contract: " + kRow + "\n"
         "        scope: invocation\n"
         "        initializer: seed.state\n"
         "        recurrence: {kind: invariant}\n"
         "    steps:\n"
         "    - kind: loop\n"
         "      setup:\n"
         "      - {kind: invoke, component: seed, inputs: {prompt: prompt}, outputs: {state: seed.state}}\n"
         "      steps:\n"
         "      - {kind: invoke, component: step, inputs: {state: acc}, outputs: {state: step.state}}\n"
         "      continue_when: package.go\n"
         "      max_iterations: package.trips\n"
         "      carried:\n"
         "      - {cell: acc, next: step.state}\n"
         "    - {kind: emit, value: acc, output: result, mode: replace}\n";
}

TEST(ParityTest, TheLoopDocumentIsValid) {
  Diagnostics d = check(loop_document());
  EXPECT_TRUE(d.empty()) << d.text();
}

// Item 2: a value the setup produces belongs to the enclosing scope; the body's values do not.
TEST(ParityTest, SetupValuesAreVisibleAfterTheLoop) {
  const std::string emit = "    - {kind: emit, value: acc, output: result, mode: replace}\n";
  Diagnostics setup = check(replace_once(loop_document(), emit,
                                         "    - {kind: emit, value: seed.state, output: result, mode: replace}\n"));
  EXPECT_TRUE(setup.empty()) << setup.text();
  Diagnostics body = check(replace_once(loop_document(), emit,
                                        "    - {kind: emit, value: step.state, output: result, mode: replace}\n"));
  EXPECT_TRUE(has(body, "V-EMIT", "steps[1].value", "not defined")) << body.text();
  // Being in the enclosing scope, a setup value cannot be defined again after the loop.
  Diagnostics twice = check(replace_once(loop_document(), emit,
                                         "    - {kind: invoke, component: seed, inputs: {prompt: prompt}, outputs: {state: seed.state}}\n" + emit));
  EXPECT_TRUE(has(twice, "V-INVOKE", "steps[1].outputs.state", "already defined")) << twice.text();
}

// Item 4: `next` may be the carried cell itself (the cell keeps its value) or a value of the
// outer scope, not only a value the body produces.
TEST(ParityTest, CarryNextMayBeTheCellOrAnOuterValue) {
  const std::string carry = "      - {cell: acc, next: step.state}\n";
  Diagnostics itself = check(replace_once(loop_document(), carry, "      - {cell: acc, next: acc}\n"));
  EXPECT_TRUE(itself.empty()) << itself.text();
  Diagnostics outer = check(replace_once(loop_document(), carry, "      - {cell: acc, next: prompt}\n"));
  EXPECT_TRUE(outer.empty()) << outer.text();
  Diagnostics from_setup = check(replace_once(loop_document(), carry, "      - {cell: acc, next: seed.state}\n"));
  EXPECT_TRUE(from_setup.empty()) << from_setup.text();
  Diagnostics missing = check(replace_once(loop_document(), carry, "      - {cell: acc, next: nowhere}\n"));
  EXPECT_TRUE(has(missing, "V-LOOP", "carried[0].next", "'nowhere' is not defined")) << missing.text();
  Diagnostics later = check(replace_once(loop_document(), "    - {kind: emit, value: acc",
                                         "    - {kind: invoke, component: seed, inputs: {prompt: prompt}, outputs: {state: after.state}}\n"
                                         "    - {kind: emit, value: acc"));
  EXPECT_TRUE(later.empty()) << later.text();
  Diagnostics after = check(replace_once(replace_once(loop_document(), "    - {kind: emit, value: acc",
                                                      "    - {kind: invoke, component: seed, inputs: {prompt: prompt}, outputs: {state: after.state}}\n"
                                                      "    - {kind: emit, value: acc"),
                                         carry, "      - {cell: acc, next: after.state}\n"));
  EXPECT_TRUE(has(after, "V-LOOP", "carried[0].next", "'after.state' is not defined")) << after.text();
  Diagnostics wrong = check(replace_once(loop_document(), carry, "      - {cell: acc, next: package.trips}\n"));
  EXPECT_TRUE(has(wrong, "V-LOOP", "carried[0].next", "not compatible")) << wrong.text();
}

// Catalogue document 21 carries `loop_0_active` with `next: package.active`, a workflow input.
TEST(ParityTest, Catalogue21CarriesAnOuterValue) {
  const std::string doc = catalogue_text("21-shared-prefix-pixel-flow.yaml");
  ASSERT_NE(doc.find("next: package.active"), std::string::npos);
  Diagnostics d = check(doc);
  EXPECT_TRUE(d.empty()) << d.text();
}

// Item 3: a workflow-owned growing cell may grow by any integer scalar; only a cell bound to a
// state service group must grow by serving.accepted_len.
TEST(ParityTest, GrowingCellOutsideAGroupMayGrowByAnyScalar) {
  std::string doc = replace_once(loop_document(), "        recurrence: {kind: invariant}\n",
                                 "        recurrence: {kind: growing, axis: 1, increment: package.grow, max: package.limit}\n");
  doc = replace_once(doc, "      package.go:\n",
                     "      package.grow:\n"
                     "        contract: " + kScalar + "\n"
                     "        role: {kind: opaque}\n"
                     "        source: {kind: literal}\n"
                     "        required: false\n"
                     "        default: 1\n"
                     "      package.limit:\n"
                     "        contract: " + kScalar + "\n"
                     "        role: {kind: opaque}\n"
                     "        source: {kind: literal}\n"
                     "        required: false\n"
                     "        default: 64\n"
                     "      package.go:\n");
  Diagnostics d = check(doc);
  EXPECT_TRUE(d.empty()) << d.text();
  // The bounds are still checked: an increment that is not an integer scalar is refused.
  Diagnostics bad = check(replace_once(doc, "increment: package.grow", "increment: prompt"));
  EXPECT_TRUE(has(bad, "V-LOOP", "state.acc.recurrence", "expected an integer scalar")) << bad.text();
}

// ---- 5. V-LAYER exempts role-less aliases -------------------------------------------------

// Catalogue document 17 with its two recurrent cells bound to one group: two aliases of one
// component, neither with a role.
std::string two_roleless_aliases() {
  std::string doc = catalogue_text("17-causal-convolution-recurrent.yaml");
  doc = replace_once(doc, "        service_group: causal_conv_history\n", "        service_group: linear_accumulator\n");
  return replace_once(doc,
                      "                  output: next_accumulator\n"
                      "          causal_conv_history:\n"
                      "            kind: recurrent\n"
                      "            layout: bch\n"
                      "            update:\n"
                      "              kind: replace\n"
                      "            ports:\n"
                      "              model:\n",
                      "                  output: next_accumulator\n");
}

TEST(ParityTest, AliasesWithoutARoleNeedNoLayer) {
  const std::string doc = two_roleless_aliases();
  ASSERT_NE(doc.find("                causal_conv_history:\n                  input: conv_history"), std::string::npos);
  Diagnostics d = check(doc);
  EXPECT_TRUE(d.empty()) << d.text();
  // Two aliases that share a role are placed by position, so they still need distinct layers.
  std::string keyed = replace_once(doc, "                  output: next_accumulator\n",
                                   "                  output: next_accumulator\n                  role: key\n");
  keyed = replace_once(keyed, "                  output: next_conv_history\n",
                       "                  output: next_conv_history\n                  role: key\n");
  Diagnostics k = check(keyed);
  EXPECT_TRUE(has(k, "V-LAYER", "groups.linear_accumulator.ports.model", "must each declare a distinct `layer`")) << k.text();
}

}  // namespace
}  // namespace ogai::metadata
