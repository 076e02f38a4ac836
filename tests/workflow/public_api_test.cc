// The public ogai::Workflow API (include/ogai/workflow.h) on the decoder and speculative fixtures.
#include <gtest/gtest.h>

#include "ogai/workflow.h"
#include "support.h"

namespace ogai::workflow::testing {
namespace {

TEST(PublicWorkflowApi, SpeculativeFixtureGivesTheReferenceTokens) {
  auto wf = ogai::Workflow::load(fixture("speculative"));
  ogai::WorkflowRequest r;
  r.inputs["request.tokens"] = TensorValue::int64({1, 2, 3, 4}, {1, 4});
  r.inputs["verifier.past_key_values.0.key"] = TensorValue::float32({}, {1, 2, 0, 8});
  r.inputs["verifier.past_key_values.0.value"] = TensorValue::float32({}, {1, 4, 0, 4});
  r.inputs["grammar.initial_state"] = TensorValue::int64({0}, {1});
  r.inputs["grammar.transition_table"] = TensorValue::int64(std::vector<std::int64_t>(32, 0), {1, 32});
  r.inputs["adaptive.current_k"] = TensorValue::int64({4}, {1});
  r.inputs["adaptive.estimates"] = TensorValue::float32(std::vector<float>(24, 0.0f), {1, 24});
  r.inputs["telemetry.draft_ms"] = TensorValue::float32({1.0f}, {1});
  r.inputs["telemetry.target_ms"] = TensorValue::float32({1.0f}, {1});
  r.max_new_tokens = 1;
  r.seed = 7;
  const auto out = wf->run(r);
  const auto rows = out.rows("tokens");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].first, 0);
  EXPECT_EQ(rows[0].second->as_int64(), (std::vector<std::int64_t>{1, 31}));
}

TEST(PublicWorkflowApi, StreamsChunksAndRefusesBadBytes) {
  auto wf = ogai::Workflow::load(fixture("decoder"));
  ogai::WorkflowRequest r;
  r.inputs["request.input_ids"] = TensorValue::int64({4, 5}, {1, 2});
  r.max_new_tokens = 3;
  int chunks = 0;
  const auto out = wf->run(r, [&](const std::string& output, std::int64_t row, const TensorValue& chunk) {
    EXPECT_EQ(output, "tokens");
    EXPECT_EQ(row, 0);
    EXPECT_EQ(chunk.dtype, "int64");
    ++chunks;
  });
  EXPECT_EQ(chunks, 3);
  EXPECT_EQ(out.outputs.at("tokens.row.0").shape, (std::vector<std::int64_t>{1, 3}));
  ogai::WorkflowRequest bad;
  bad.inputs["request.input_ids"] = TensorValue{"int64", {1, 2}, std::vector<std::byte>(3)};
  EXPECT_THROW(wf->run(bad), ogai::Error);
}

}  // namespace
}  // namespace ogai::workflow::testing
