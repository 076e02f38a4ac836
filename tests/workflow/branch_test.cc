// `branch` with a phi output (digest 5.4) on a package written by the test: a bool predicate picks
// an Identity or a Neg graph; the phi carries the chosen case's value to the emit.
#include <gtest/gtest.h>

#include <fstream>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

namespace fs = std::filesystem;

std::string graph(const std::string& op) {
  const std::string vec = "type { tensor_type { elem_type: 1 shape { dim { dim_param: \"n\" } } } }";
  return "ir_version: 8\ngraph {\n  node { input: \"x\" output: \"y\" op_type: \"" + op + "\" }\n  name: \"" + op +
         "\"\n  input { name: \"x\" " + vec + " }\n  output { name: \"y\" " + vec + " }\n}\n"
         "opset_import { domain: \"\" version: 17 }\n";
}

const char* kDocument = R"(schema_version: v1
pipeline:
  workflow:
    manifest:
      capabilities: [workflow_ssa, typed_emit, nested_control_flow]
    inputs:
      request.x:
        contract: {dtype: float32, rank: 1, shape: [n]}
        role: {kind: opaque}
        source: {kind: application, name: x}
      request.flag:
        contract: {dtype: bool, rank: 0}
        role: {kind: opaque}
        source: {kind: application, name: flag}
    outputs:
      y:
        contract: {dtype: float32, rank: 1, shape: [n]}
        role: tensor
        stage: pre_adapter
    components:
      pass:
        implementation: {kind: onnx, artifact: pass.onnx.textproto}
        ports:
          inputs: {x: {dtype: float32, rank: 1, shape: [n]}}
          outputs: {y: {dtype: float32, rank: 1, shape: [n]}}
      negate:
        implementation: {kind: onnx, artifact: negate.onnx.textproto}
        ports:
          inputs: {x: {dtype: float32, rank: 1, shape: [n]}}
          outputs: {y: {dtype: float32, rank: 1, shape: [n]}}
    steps:
    - kind: branch
      predicate: request.flag
      cases:
        true: {kind: invoke, component: pass, inputs: {x: request.x}, outputs: {y: kept}}
        false: {kind: invoke, component: negate, inputs: {x: request.x}, outputs: {y: negated}}
      outputs:
        chosen:
          cases: {true: kept, false: negated}
    - kind: emit
      value: chosen
      output: y
      mode: replace
)";

const Program& branch_program() {
  static const Program p = [] {
    const fs::path dir = fs::temp_directory_path() / ("ogai_branch_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "inference_metadata.yaml") << kDocument;
    std::ofstream(dir / "pass.onnx.textproto") << graph("Identity");
    std::ofstream(dir / "negate.onnx.textproto") << graph("Neg");
    Program program = load_program(dir);
    fs::remove_all(dir);
    return program;
  }();
  return p;
}

std::vector<float> run_with(bool flag) {
  RunRequest r;
  r.tensors.emplace("x", f32({1.5f, -2.0f}, {2}));
  ort::Tensor f = ort::Tensor::allocate(DataType::kBool, {});
  f.span<bool>()[0] = flag;
  r.tensors.emplace("flag", std::move(f));
  const auto result = run(branch_program(), std::move(r));
  return floats(result.outputs.at("y"));
}

TEST(Branch, ThePredicatePicksTheCaseAndThePhiCarriesItsValue) {
  EXPECT_EQ(run_with(true), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(run_with(false), (std::vector<float>{-1.5f, 2.0f}));
}

TEST(Branch, APredicateWithSeveralValuesIsAnError) {
  RunRequest r;
  r.tensors.emplace("x", f32({1.0f}, {1}));
  r.tensors.emplace("flag", boolean({true, false}));
  try {
    run(branch_program(), std::move(r));
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("flag"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ogai::workflow::testing
