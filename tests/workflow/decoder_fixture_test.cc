// Digest §9.1: the `decoder` conformance fixture (loop with policy graphs, generation_eos,
// per-row ragged `tokens`). Every [test] expectation of the reference, plus interpreter wiring.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

const Program& decoder() { return program("decoder"); }

// The reference's decoder_batch_request: every input explicit, argmax sampling (top_k 1).
RunRequest batch_request(std::vector<std::int64_t> ids, std::int64_t rows, std::vector<std::int64_t> lengths,
                         std::vector<bool> active) {
  RunRequest r;
  const std::int64_t width = static_cast<std::int64_t>(ids.size()) / rows;
  r.tensors.emplace("request.input_ids", i64(ids, {rows, width}));
  r.tensors.emplace("prompt_lengths", i64(lengths));
  std::vector<float> one(rows, 1.0f), zero(rows, 0.0f);
  r.tensors.emplace("request.temperature", f32(one, {rows}));
  r.tensors.emplace("request.top_k", i64(std::vector<std::int64_t>(rows, 1)));
  r.tensors.emplace("request.top_p", f32(one, {rows}));
  r.tensors.emplace("request.min_p", f32(zero, {rows}));
  std::vector<std::int64_t> seeds;
  for (std::int64_t i = 0; i < rows; ++i) seeds.push_back(i);
  r.tensors.emplace("request.seed", i64(seeds));
  r.tensors.emplace("eos_ids", i64(std::vector<std::int64_t>(rows, 2), {rows, 1}));
  r.tensors.emplace("eos_lengths", i64(std::vector<std::int64_t>(rows, 1)));
  r.tensors.emplace("row_max_iterations", i64(std::vector<std::int64_t>(rows, -1)));
  r.tensors.emplace("rng_counter", i64(std::vector<std::int64_t>(rows, 0)));
  r.tensors.emplace("package.active", boolean(active));
  r.max_new_tokens = 3;
  return r;
}

std::vector<std::int64_t> row_ids(const RunResult& result, std::int64_t row) {
  for (const auto& [r, t] : result.rows("tokens"))
    if (r == row) return ints(*t);
  ADD_FAILURE() << "row " << row << " was not emitted";
  return {};
}

TEST(DecoderFixture, PromptGivesThreeIds) {
  RunRequest r;
  r.prompt_tokens = std::vector<TokenId>{4, 5};
  r.max_new_tokens = 3;
  r.seed = 7;
  const auto result = run(decoder(), std::move(r));
  const ort::Tensor* tokens = result.first("tokens");
  ASSERT_NE(tokens, nullptr);
  EXPECT_EQ(tokens->shape(), (ort::Shape{1, 3}));
  EXPECT_EQ(result.stats.iterations, 3);
}

TEST(DecoderFixture, BatchRowsEqualSingleRuns) {
  const auto t1 = row_ids(run(decoder(), batch_request({4, 5}, 1, {2}, {true})), 0);
  const auto t2 = row_ids(run(decoder(), batch_request({6, 0}, 1, {1}, {true})), 0);
  ASSERT_EQ(t1.size(), 3u);
  ASSERT_EQ(t2.size(), 3u);
  const auto both = run(decoder(), batch_request({4, 5, 6, 0}, 2, {2, 1}, {true, true}));
  ASSERT_EQ(both.rows("tokens").size(), 2u);
  EXPECT_EQ(row_ids(both, 0), t1);
  EXPECT_EQ(row_ids(both, 1), t2);
  EXPECT_EQ(both.outputs.count("tokens"), 0u) << "a row-wise output has no aggregate";

  const auto swapped = run(decoder(), batch_request({6, 0, 4, 5}, 2, {1, 2}, {true, true}));
  EXPECT_EQ(row_ids(swapped, 0), t2);
  EXPECT_EQ(row_ids(swapped, 1), t1);

  const auto first_only = run(decoder(), batch_request({4, 5, 6, 0}, 2, {2, 1}, {true, false}));
  ASSERT_EQ(first_only.rows("tokens").size(), 1u);
  EXPECT_EQ(first_only.rows("tokens")[0].first, 0);
  EXPECT_EQ(row_ids(first_only, 0), t1);

  const auto second_only = run(decoder(), batch_request({4, 5, 6, 0}, 2, {2, 1}, {false, true}));
  ASSERT_EQ(second_only.rows("tokens").size(), 1u);
  EXPECT_EQ(second_only.rows("tokens")[0].first, 1);
  EXPECT_EQ(ints(*second_only.first("tokens")), t2);

  EXPECT_EQ(row_ids(run(decoder(), batch_request({6, 0}, 1, {1}, {true})), 0), t2) << "state leaked between requests";
}

TEST(DecoderFixture, ZeroTripLoopEmitsNothing) {
  RunRequest r;
  r.prompt_tokens = std::vector<TokenId>{4, 5};
  r.max_new_tokens = 0;
  const auto result = run(decoder(), std::move(r));
  EXPECT_TRUE(result.outputs.empty());
  EXPECT_EQ(result.stats.iterations, 0);
}

TEST(DecoderFixture, EmitCallbackSeesEveryChunkInOrder) {
  RunRequest r;
  r.prompt_tokens = std::vector<TokenId>{4, 5};
  r.max_new_tokens = 4;
  std::vector<std::int64_t> streamed;
  const auto result =
      run(decoder(), std::move(r), [&](const std::string& output, std::int64_t row, const ort::Tensor& chunk) {
        EXPECT_EQ(output, "tokens");
        EXPECT_EQ(row, 0);
        for (auto v : ints(chunk)) streamed.push_back(v);
      });
  EXPECT_EQ(streamed, ints(*result.first("tokens")));
  EXPECT_EQ(streamed.size(), 4u);
}

}  // namespace
}  // namespace ogai::workflow::testing
