// Digest §9.3: the `speculative` conformance fixture (proposer/verifier loop, grammar-guidance@1
// clone / lookahead / commit, adaptive budget, two ragged appends per iteration).
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

RunRequest speculative_request(std::int64_t iterations) {
  RunRequest r;
  r.prompt_tokens = std::vector<TokenId>{1, 2, 3, 4};
  r.max_new_tokens = iterations;
  r.seed = 7;
  r.tensors.emplace("verifier.past_key_values.0.key", f32({}, {1, 2, 0, 8}));
  r.tensors.emplace("verifier.past_key_values.0.value", f32({}, {1, 4, 0, 4}));
  r.tensors.emplace("grammar.initial_state", i64({0}));
  r.tensors.emplace("grammar.transition_table", i64(std::vector<std::int64_t>(32, 0), {1, 32}));
  r.tensors.emplace("adaptive.current_k", i64({4}));
  r.tensors.emplace("adaptive.estimates", f32(std::vector<float>(24, 0.0f), {1, 24}));
  r.tensors.emplace("telemetry.draft_ms", f32({1.0f}, {1}));
  r.tensors.emplace("telemetry.target_ms", f32({1.0f}, {1}));
  return r;
}

TEST(SpeculativeFixture, RejectionAndCorrection) {
  const auto result = run(program("speculative"), speculative_request(1));
  auto it = result.outputs.find("tokens.row.0");
  ASSERT_NE(it, result.outputs.end());
  EXPECT_EQ(ints(it->second), (std::vector<std::int64_t>{1, 31}));
}

}  // namespace
}  // namespace ogai::workflow::testing
