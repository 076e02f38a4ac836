// The adapter interface (workflow/adapter.h): the registry finds the native units by ABI and
// version, and a port carries the role its component's bindings give it, else its own name.
#include <gtest/gtest.h>

#include "base/error.h"
#include "workflow/adapter.h"

namespace ogai::workflow {
namespace {

TEST(Adapter, RegistryFindsGrammarGuidanceByAbiAndVersion) {
  EXPECT_NE(find_adapter("onnx-genai.grammar-guidance", "1"), nullptr);
  EXPECT_EQ(find_adapter("onnx-genai.grammar-guidance", "2"), nullptr);
  EXPECT_EQ(find_adapter("onnx-genai.no-such-adapter", "1"), nullptr);
}

TEST(Adapter, RolesComeFromBindingsElsePortNames) {
  metadata::Component comp;
  EXPECT_EQ(adapter_role(comp, "encoded"), "encoded");
  comp.contract = metadata::ComponentContract{};
  comp.contract->bindings = {{"state", "grammar_state"}, {"tokens", "draft"}};
  EXPECT_EQ(adapter_role(comp, "grammar_state"), "state");
  EXPECT_EQ(adapter_role(comp, "draft"), "tokens");
  EXPECT_EQ(adapter_role(comp, "other"), "other");
}

TEST(Adapter, UnknownAbiIsRefusedNamingStepAndAbi) {
  metadata::Package package;
  metadata::Component comp;
  comp.implementation.kind = metadata::Implementation::Kind::kAdapter;
  comp.implementation.abi = "onnx-genai.no-such-adapter";
  comp.implementation.version = "3";
  const AdapterSite site{package, comp, "thing", "pipeline.workflow.components.thing"};
  try {
    prepare_adapter(site, "pipeline.workflow.steps[0]");
    FAIL() << "an unknown ABI was prepared";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pipeline.workflow.steps[0]"), std::string::npos) << what;
    EXPECT_NE(what.find("onnx-genai.no-such-adapter@3"), std::string::npos) << what;
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
}

}  // namespace
}  // namespace ogai::workflow
