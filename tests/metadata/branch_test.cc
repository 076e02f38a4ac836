// Branches, phi outputs and optional inputs guarded by their presence flag (V-BRANCH, V-IN,
// V-SEQ), on a small two-case workflow.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::metadata {
namespace {

using testing::check;
using testing::has;
using testing::replace_once;

const std::string kTokens = "{dtype: int64, rank: 2, shape: [batch, sequence], batch_layout: {kind: request_aligned, axis: 0}}";

std::string document() {
  return "schema_version: v1\n"
         "pipeline:\n"
         "  workflow:\n"
         "    manifest:\n"
         "      capabilities: [workflow_ssa, typed_emit, nested_control_flow, input_presence]\n"
         "    inputs:\n"
         "      request.image:\n"
         "        contract: {dtype: uint8, rank: 1, shape: [encoded_bytes]}\n"
         "        role: {kind: runtime, version: '1.0', role: media}\n"
         "        source: {kind: request}\n"
         "        required: false\n"
         "        present_as: request.has_image\n"
         "      prompt:\n"
         "        contract: " + kTokens + "\n"
         "        role: {kind: opaque}\n"
         "        source: {kind: application, name: prompt}\n"
         "    outputs:\n"
         "      tokens:\n"
         "        contract: " + kTokens + "\n"
         "        role: tokens\n"
         "        stage: pre_adapter\n"
         "    components:\n"
         "      with_image:\n"
         "        implementation: {kind: onnx, artifact: with_image.onnx}\n"
         "        ports:\n"
         "          inputs: {image: {dtype: uint8, rank: 1, shape: [encoded_bytes]}, prompt: " + kTokens + "}\n"
         "          outputs: {tokens: " + kTokens + "}\n"
         "      text_only:\n"
         "        implementation: {kind: onnx, artifact: text_only.onnx}\n"
         "        ports:\n"
         "          inputs: {prompt: " + kTokens + "}\n"
         "          outputs: {tokens: " + kTokens + "}\n"
         "    steps:\n"
         "    - kind: branch\n"
         "      predicate: request.has_image\n"
         "      cases:\n"
         "        true: {kind: invoke, component: with_image, inputs: {image: request.image, prompt: prompt}, outputs: {tokens: image.tokens}}\n"
         "        false: {kind: invoke, component: text_only, inputs: {prompt: prompt}, outputs: {tokens: text.tokens}}\n"
         "      outputs:\n"
         "        result.tokens:\n"
         "          cases: {true: image.tokens, false: text.tokens}\n"
         "    - kind: emit\n"
         "      value: result.tokens\n"
         "      output: tokens\n"
         "      mode: replace\n";
}

TEST(BranchTest, TheBaseDocumentIsValid) { EXPECT_TRUE(check(document()).empty()) << check(document()).text(); }

TEST(BranchTest, OptionalInputReadOutsideItsPresenceCase) {
  std::string text = replace_once(document(), "    steps:\n",
                                  "    steps:\n    - {kind: invoke, component: with_image, inputs: {image: request.image, prompt: prompt}, "
                                  "outputs: {tokens: early.tokens}}\n");
  Diagnostics d = check(text);
  EXPECT_TRUE(has(d, "V-IN", "steps[0].inputs.image", "outside the 'true' case")) << d.text();
  std::string false_case = replace_once(document(), "false: {kind: invoke, component: text_only, inputs: {prompt: prompt}",
                                        "false: {kind: invoke, component: with_image, inputs: {image: request.image, prompt: prompt}");
  EXPECT_TRUE(has(check(false_case), "V-IN", "cases.false.inputs.image")) << check(false_case).text();
}

TEST(BranchTest, PhiOutputsMustCoverEveryCase) {
  Diagnostics d = check(replace_once(document(), "cases: {true: image.tokens, false: text.tokens}", "cases: {true: image.tokens}"));
  EXPECT_TRUE(has(d, "V-BRANCH", "outputs.result.tokens.cases", "does not map case 'false'")) << d.text();
  std::string with_default = replace_once(document(), "      outputs:\n        result.tokens:",
                                          "      default: {kind: invoke, component: text_only, inputs: {prompt: prompt}, outputs: {tokens: d.tokens}}\n"
                                          "      outputs:\n        result.tokens:");
  EXPECT_TRUE(has(check(with_default), "V-BRANCH", "outputs.result.tokens", "needs a default")) << check(with_default).text();
  Diagnostics wrong_value = check(replace_once(document(), "cases: {true: image.tokens, false: text.tokens}",
                                               "cases: {true: text.tokens, false: text.tokens}"));
  EXPECT_TRUE(has(wrong_value, "V-BRANCH", "cases.true", "not defined")) << wrong_value.text();
}

TEST(BranchTest, CaseValuesDoNotEscapeWithoutPhi) {
  Diagnostics d = check(replace_once(document(), "      value: result.tokens\n", "      value: image.tokens\n"));
  EXPECT_TRUE(has(d, "V-EMIT", "steps[1].value", "not defined")) << d.text();
}

TEST(BranchTest, PredicateTypeAndCases) {
  Diagnostics d = check(replace_once(document(), "predicate: request.has_image", "predicate: prompt"));
  EXPECT_TRUE(has(d, "V-BRANCH", "steps[0].predicate", "expected bool or integer")) << d.text();
  std::string no_cases = replace_once(document(),
                                      "      cases:\n        true: {kind: invoke, component: with_image, inputs: {image: request.image, prompt: prompt}, outputs: {tokens: image.tokens}}\n"
                                      "        false: {kind: invoke, component: text_only, inputs: {prompt: prompt}, outputs: {tokens: text.tokens}}\n",
                                      "      cases: {}\n");
  EXPECT_TRUE(has(check(no_cases), "V-SEQ", "steps[0].cases")) << check(no_cases).text();
}

TEST(BranchTest, PresentAsRules) {
  Diagnostics required = check(replace_once(document(), "required: false\n        present_as", "required: true\n        present_as"));
  EXPECT_TRUE(has(required, "V-IN", "request.image.present_as", "only on optional")) << required.text();
  Diagnostics role = check(replace_once(document(), "role: media}", "role: prompt_tokens}"));
  EXPECT_TRUE(has(role, "V-IN", "request.image.present_as", "media, constraint and session_id")) << role.text();
  Diagnostics caps = check(replace_once(document(), ", input_presence]", "]"));
  EXPECT_TRUE(has(caps, "V-CAP", "manifest.capabilities", "input_presence")) << caps.text();
}

}  // namespace
}  // namespace ogai::metadata
