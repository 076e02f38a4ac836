// Rule RUN (runnable.h): documents the reference accepts but ogai cannot run are valid documents
// (`ogai validate` agrees with the reference) and are refused by name when loaded to run.
#include <gtest/gtest.h>

#include "base/error.h"
#include "metadata/parse.h"
#include "metadata/runnable.h"
#include "support.h"

namespace ogai::metadata {
namespace {

using testing::check;
using testing::has;
using testing::replace_once;

// A one-step workflow whose component is a binding (no artifact to resolve).
const std::string kWorkflow = R"(schema_version: v1
pipeline:
  workflow:
    manifest:
      capabilities: [workflow_ssa]
    inputs:
      package.limit:
        contract: {dtype: int64, rank: 0, shape: []}
        role: {kind: opaque}
        source: {kind: literal}
        default: 4
    components:
      noop:
        implementation: {kind: binding}
        ports: {}
    steps:
      - kind: invoke
        component: noop
)";

Diagnostics runnable(const std::string& text) {
  Diagnostics parse_diags;
  Document doc = parse_document_text(text, "inference_metadata.yaml", parse_diags);
  EXPECT_TRUE(parse_diags.empty()) << parse_diags.text();
  Diagnostics d;
  check_runnable(doc, d);
  return d;
}

TEST(RunnableTest, TheBaseWorkflowIsValidAndRunnable) {
  EXPECT_TRUE(check(kWorkflow).empty()) << check(kWorkflow).text();
  EXPECT_TRUE(runnable(kWorkflow).empty()) << runnable(kWorkflow).text();
  // Extension ids (with a '.') and every built-in id are fine.
  std::string ext = replace_once(kWorkflow, "[workflow_ssa]", "[workflow_ssa, vendor.fast_path, telemetry_adapter]");
  EXPECT_TRUE(runnable("required_capabilities: [kv_cache, vendor.custom]\n" + ext).empty());
}

TEST(RunnableTest, UnknownCapabilityIsValidButNotRunnable) {
  std::string manifest = replace_once(kWorkflow, "[workflow_ssa]", "[workflow_ssa, warp_drive]");
  EXPECT_TRUE(check(manifest).empty()) << check(manifest).text();
  EXPECT_TRUE(has(runnable(manifest), "RUN", "manifest.capabilities[1]", "'warp_drive'")) << runnable(manifest).text();
  std::string required = "required_capabilities: [fast]\n" + kWorkflow;
  EXPECT_TRUE(check(required).empty()) << check(required).text();
  EXPECT_TRUE(has(runnable(required), "RUN", "required_capabilities[0]", "'fast'")) << runnable(required).text();
}

TEST(RunnableTest, DocumentWithoutAPipelineIsValidButNotRunnable) {
  const std::string profiles = "schema_version: v1\nprofiles:\n  future:\n    kind: some.future.task\n    version: \"1\"\n"
                               "    requirement: ignorable\n";
  EXPECT_TRUE(check(profiles).empty()) << check(profiles).text();
  EXPECT_TRUE(has(runnable(profiles), "RUN", "pipeline", "nothing to run")) << runnable(profiles).text();
}

TEST(RunnableTest, LiteralWithoutDefaultIsValidButNotRunnable) {
  std::string text = replace_once(kWorkflow, "        default: 4\n", "");
  EXPECT_TRUE(check(text).empty()) << check(text).text();
  EXPECT_TRUE(has(runnable(text), "RUN", "inputs.package.limit.default", "no value to run with")) << runnable(text).text();
}

// Profiles: ogai executes generation profiles and ctc / greedy_argmax transcription profiles with an
// inline or tokenizer vocabulary and a `logits` role; a required profile beyond that is refused by
// its field, an ignorable one is skipped (the CTC decoding itself: tests/e2e/ctc_run_cli_test.py).
TEST(RunnableTest, ProfilesOgaiDoesNotExecuteAreRefusedByField) {
  const std::string ctc = "profiles:\n  t:\n    kind: transcription\n    version: '1'\n    outputs: {logits: out}\n"
                          "    decoding: {kind: ctc, blank_id: 0, time_axis: 1, class_axis: 2, vocabulary: {source: inline, "
                          "tokens: [a, b]}}\n";
  EXPECT_TRUE(runnable(kWorkflow + ctc).empty()) << runnable(kWorkflow + ctc).text();
  EXPECT_TRUE(runnable(kWorkflow + replace_once(ctc, "kind: ctc, blank_id: 0", "kind: greedy_argmax")).empty());
  EXPECT_TRUE(runnable(kWorkflow + "profiles: {g: {kind: generation, version: '1', outputs: {tokens: out}}}\n").empty());
  const std::string beam = kWorkflow + replace_once(ctc, "kind: ctc", "kind: beam_search");
  EXPECT_TRUE(has(runnable(beam), "RUN", "profiles.t.decoding.kind", "'beam_search'")) << runnable(beam).text();
  const std::string lexicon = kWorkflow + replace_once(ctc, "source: inline", "source: lexicon");
  EXPECT_TRUE(has(runnable(lexicon), "RUN", "profiles.t.decoding.vocabulary.source", "lexicon"));
  const std::string role = kWorkflow + replace_once(ctc, "outputs: {logits: out}", "outputs: {scores: out}");
  EXPECT_TRUE(has(runnable(role), "RUN", "profiles.t.outputs", "`logits`")) << runnable(role).text();
  const std::string embedding = kWorkflow + "profiles: {e: {kind: embedding, version: '1', outputs: {embedding: out}}}\n";
  EXPECT_TRUE(has(runnable(embedding), "RUN", "profiles.e.kind", "'embedding'")) << runnable(embedding).text();
  const std::string ignorable = kWorkflow + "profiles: {e: {kind: embedding, version: '1', requirement: ignorable}}\n";
  EXPECT_TRUE(runnable(ignorable).empty()) << runnable(ignorable).text();
}

TEST(RunnableTest, LoadRefusesByName) {
  testing::TempDir dir("runnable");
  dir.write("inference_metadata.yaml", replace_once(kWorkflow, "[workflow_ssa]", "[workflow_ssa, warp_drive]"));
  EXPECT_TRUE(validate_package(dir.path()).valid()) << validate_package(dir.path()).diagnostics.text();
  try {
    load_package(dir.path());
    ADD_FAILURE() << "load_package accepted a capability ogai does not know";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'warp_drive'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot run"), std::string::npos) << e.what();
  }
  dir.write("inference_metadata.yaml", kWorkflow);
  EXPECT_NO_THROW(load_package(dir.path()));
}

}  // namespace
}  // namespace ogai::metadata
