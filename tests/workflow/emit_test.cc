// `emit` publication modes on a package written by the test (no graphs: the emits publish an
// input): appends along a contiguous axis (buffered) and along an inner axis of a two-row value
// (concatenated), events (each kept under NAME.K, the last under NAME) and replace.
#include <gtest/gtest.h>

#include <fstream>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

namespace fs = std::filesystem;

const char* kDocument = R"(schema_version: v1
pipeline:
  workflow:
    manifest:
      capabilities: [workflow_ssa, typed_emit, streaming_emit]
    inputs:
      request.m:
        contract: {dtype: float32, rank: 2, shape: [2, 3]}
        role: {kind: opaque}
        source: {kind: application, name: m}
    outputs:
      wide:
        contract: {dtype: float32, rank: 2, shape: [2, k]}
        role: tensor
        stage: pre_adapter
      tall:
        contract: {dtype: float32, rank: 2, shape: [r, 3]}
        role: tensor
        stage: pre_adapter
      ev:
        contract: {dtype: float32, rank: 2, shape: [2, 3]}
        role: tensor
        stage: pre_adapter
    components: {}
    steps:
    - {kind: emit, value: request.m, output: wide, mode: append, axis: 1}
    - {kind: emit, value: request.m, output: wide, mode: append, axis: 1}
    - {kind: emit, value: request.m, output: tall, mode: append, axis: 0}
    - {kind: emit, value: request.m, output: tall, mode: append, axis: 0}
    - {kind: emit, value: request.m, output: tall, mode: append, axis: 0}
    - {kind: emit, value: request.m, output: ev, mode: event}
    - {kind: emit, value: request.m, output: ev, mode: event}
)";

RunResult run_emits() {
  const fs::path dir = fs::temp_directory_path() / ("ogai_emit_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "inference_metadata.yaml") << kDocument;
  Program program = load_program(dir);
  fs::remove_all(dir);
  RunRequest r;
  r.tensors.emplace("m", f32({1, 2, 3, 4, 5, 6}, {2, 3}));
  return run(program, std::move(r));
}

TEST(Emit, AppendsEventsAndReplacesPublishWhatTheyShould) {
  const auto result = run_emits();
  const auto& wide = result.outputs.at("wide");
  EXPECT_EQ(wide.shape(), (ort::Shape{2, 6}));
  EXPECT_EQ(floats(wide), (std::vector<float>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  const auto& tall = result.outputs.at("tall");
  EXPECT_EQ(tall.shape(), (ort::Shape{6, 3}));
  EXPECT_EQ(floats(tall), (std::vector<float>{1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}));
  for (const char* key : {"ev", "ev.0", "ev.1"}) {
    ASSERT_TRUE(result.outputs.count(key)) << key;
    EXPECT_EQ(floats(result.outputs.at(key)), (std::vector<float>{1, 2, 3, 4, 5, 6})) << key;
  }
  EXPECT_FALSE(result.outputs.count("ev.2"));
}

}  // namespace
}  // namespace ogai::workflow::testing
