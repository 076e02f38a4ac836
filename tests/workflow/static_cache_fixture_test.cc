// Digest §9.2: the `static_cache` conformance fixture (fixed-capacity indexed_scatter group).
// Every row of the reference's table (SCT), "written slot" = any nonzero value in the 4-wide slot.
#include <gtest/gtest.h>

#include "support.h"

namespace ogai::workflow::testing {
namespace {

RunResult run_static(std::vector<std::int64_t> prompts, std::int64_t width, std::vector<std::int64_t> write_indices,
                     std::vector<bool> active, std::int64_t steps) {
  RunRequest r;
  const std::int64_t rows = static_cast<std::int64_t>(prompts.size()) / width;
  r.tensors.emplace("request.input_ids", i64(prompts, {rows, width}));
  r.tensors.emplace("request.write_indices", i64(write_indices));
  r.tensors.emplace("request.active", boolean(active));
  r.tensors.emplace("request.max_iterations", i64({steps}));
  r.max_new_tokens = steps;
  return run(program("static_cache"), std::move(r));
}

const ort::Tensor& out(const RunResult& r, const std::string& name) {
  auto it = r.outputs.find(name);
  if (it == r.outputs.end()) throw std::runtime_error("output " + name + " missing");
  return it->second;
}

// Slots of `row` with any nonzero value in a [B, 8, 4] cache.
std::vector<std::int64_t> written(const ort::Tensor& cache, std::int64_t row) {
  const auto v = floats(cache);
  std::vector<std::int64_t> slots;
  for (std::int64_t s = 0; s < 8; ++s) {
    bool any = false;
    for (std::int64_t k = 0; k < 4; ++k) any = any || v[static_cast<std::size_t>((row * 8 + s) * 4 + k)] != 0.0f;
    if (any) slots.push_back(s);
  }
  return slots;
}

std::vector<float> slot(const ort::Tensor& cache, std::int64_t row, std::int64_t s) {
  const auto v = floats(cache);
  const auto at = v.begin() + (row * 8 + s) * 4;
  return {at, at + 4};
}

TEST(StaticCacheFixture, TwoRowsTwoSteps) {
  const auto r = run_static({1, 2, 3, 4, 5, 6}, 3, {0, 3}, {true, true}, 2);
  const auto& key = out(r, "key_cache");
  const auto& value = out(r, "value_cache");
  EXPECT_EQ(key.shape(), (ort::Shape{2, 8, 4}));
  EXPECT_EQ(written(key, 0), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(written(key, 1), (std::vector<std::int64_t>{3, 4, 5}));
  EXPECT_EQ(written(value, 0), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(written(value, 1), (std::vector<std::int64_t>{3, 4, 5}));
  EXPECT_EQ(ints(out(r, "write_indices")), (std::vector<std::int64_t>{2, 5}));
  EXPECT_EQ(ints(out(r, "cache_lengths")), (std::vector<std::int64_t>{3, 6}));
  const auto k0 = slot(key, 0, 0), v0 = slot(value, 0, 0);
  EXPECT_NE(k0, v0);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(k0[i] * k0[i], v0[i], 1e-6);
}

TEST(StaticCacheFixture, OneRowFromSlotFour) {
  const auto r = run_static({1, 2, 3}, 3, {4}, {true}, 1);
  EXPECT_EQ(written(out(r, "key_cache"), 0), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(ints(out(r, "cache_lengths")), (std::vector<std::int64_t>{6}));
}

TEST(StaticCacheFixture, ZeroStepsRunsSetupOnly) {
  const auto r = run_static({1, 2, 3, 4, 5, 6}, 3, {0, 0}, {true, true}, 0);
  EXPECT_EQ(ints(out(r, "cache_lengths")), (std::vector<std::int64_t>{1, 1}));
}

TEST(StaticCacheFixture, InactiveRowKeepsItsSetupSlot) {
  const auto zero = run_static({1, 2, 3, 4, 5, 6}, 3, {0, 0}, {true, true}, 0);
  const auto r = run_static({1, 2, 3, 4, 5, 6}, 3, {0, 0}, {true, false}, 3);
  EXPECT_EQ(ints(out(r, "cache_lengths")), (std::vector<std::int64_t>{4, 1}));
  EXPECT_EQ(slot(out(r, "key_cache"), 1, 0), slot(out(zero, "key_cache"), 1, 0));
}

TEST(StaticCacheFixture, LongerRunExtendsShorterOne) {
  const auto two = run_static({4, 5, 6}, 3, {0}, {true}, 2);
  const auto four = run_static({4, 5, 6}, 3, {0}, {true}, 4);
  EXPECT_EQ(ints(out(two, "cache_lengths")), (std::vector<std::int64_t>{3}));
  for (std::int64_t s = 0; s <= 2; ++s) EXPECT_EQ(slot(out(two, "key_cache"), 0, s), slot(out(four, "key_cache"), 0, s));
  EXPECT_EQ(ints(out(four, "cache_lengths")), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(ints(out(four, "write_indices")), (std::vector<std::int64_t>{4}));
}

TEST(StaticCacheFixture, RepeatedRunsAreIdentical) {
  const auto a = run_static({1, 2, 3, 4, 5, 6}, 3, {1, 2}, {true, true}, 3);
  const auto b = run_static({1, 2, 3, 4, 5, 6}, 3, {1, 2}, {true, true}, 3);
  for (const char* name : {"key_cache", "logits"}) EXPECT_EQ(floats(out(a, name)), floats(out(b, name))) << name;
  EXPECT_EQ(ints(out(a, "write_indices")), ints(out(b, "write_indices")));
}

TEST(StaticCacheFixture, WriteOutsideCapacityFailsBeforeAnyGraph) {
  for (std::int64_t bad : {8, -1}) {
    try {
      run_static({1, 2, 3}, 3, {bad}, {true}, 1);
      ADD_FAILURE() << "write index " << bad << " was accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("outside its capacity"), std::string::npos) << msg;
      EXPECT_NE(msg.find("decoder_cache"), std::string::npos) << msg;
      EXPECT_NE(msg.find("setup[1]"), std::string::npos) << "names the setup invoke: " << msg;
    }
  }
}

}  // namespace
}  // namespace ogai::workflow::testing
