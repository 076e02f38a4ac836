// The adapter fixture through the public C++ API (ogai::Workflow): the reference conformance
// test's request sequence on one loaded package, with its pinned outputs and the cache lifecycle
// (loads 4, evictions 2, reloads 1, capture invalidations 2); the same values with the selection
// passed as tensors; concurrent requests with different adapters.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "ogai/error.h"
#include "ogai/workflow.h"

namespace ogai {
namespace {

std::filesystem::path fixture() {
  return std::filesystem::path(OGAI_SHARED_DIR) / "conformance/metadata/fixtures/adapter";
}

using Row = std::vector<AdapterChoice>;

std::vector<float> run(const Workflow& wf, const std::vector<bool>& active, const std::vector<float>& x,
                       const std::vector<Row>& rows) {
  WorkflowRequest r;
  const auto b = static_cast<std::int64_t>(active.size());
  r.inputs["activations"] = TensorValue::float32(x, {b, 2});
  r.inputs["request.active"] = TensorValue::boolean(active, {b});
  r.adapters = rows;
  return wf.run(r).outputs.at("result").as_float32();
}

const Row kRed{{"red", 1}}, kBlue{{"blue", 1}}, kGreen{{"green", 1}}, kMix{{"red", 0.5f}, {"blue", 1}};

TEST(LoraWorkflow, ReferenceSequenceValuesAndLifecycle) {
  auto wf = Workflow::load(fixture());
  EXPECT_EQ(run(*wf, {true, false, true}, {1, 2, 3, 4, 5, 6}, {kRed, kBlue, kMix}),
            (std::vector<float>{2, 4, 3, 4, 25.5f, 35}));
  EXPECT_EQ(run(*wf, {true, true}, {5, 6, 1, 2}, {kMix, kRed}), (std::vector<float>{25.5f, 35, 2, 4}));
  EXPECT_EQ(run(*wf, {true}, {1, 2}, {{}}), (std::vector<float>{1, 2}));
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run(*wf, {true}, {1, 2}, {kBlue}), (std::vector<float>{7, 10}));
  EXPECT_EQ(run(*wf, {true}, {1, 2}, {kGreen}), (std::vector<float>{4, 5}));
  for (int i = 0; i < 2; ++i) EXPECT_EQ(run(*wf, {true}, {1, 2}, {kRed}), (std::vector<float>{2, 4}));
  const AdapterLifecycle s = wf->adapter_lifecycle();
  EXPECT_EQ(s.loads, 4u);
  EXPECT_GT(s.cache_hits, 0u);
  EXPECT_EQ(s.evictions, 2u);
  EXPECT_EQ(s.reloads, 1u);
  EXPECT_EQ(s.capture_invalidations, 2u);
  EXPECT_GT(s.replayed_plans, 0u);
  EXPECT_EQ(s.cached, (std::vector<std::string>{"green", "red"}));
}

TEST(LoraWorkflow, SelectionTensorsGiveTheSameRows) {
  auto wf = Workflow::load(fixture());
  WorkflowRequest r;
  r.inputs["activations"] = TensorValue::float32({1, 2, 3, 4, 5, 6}, {3, 2});
  r.inputs["request.active"] = TensorValue::boolean({true, false, true}, {3});
  r.inputs["request.adapter_segments"] = TensorValue::int64({3, -1, 0, -1, 3, 0}, {3, 2});
  r.inputs["request.adapter_counts"] = TensorValue::int64({1, 1, 2}, {3});
  r.inputs["request.adapter_scales"] = TensorValue::float32({1, 0, 1, 0, 0.5f, 1}, {3, 2});
  EXPECT_EQ(wf->run(r).outputs.at("result").as_float32(), (std::vector<float>{2, 4, 3, 4, 25.5f, 35}));
  EXPECT_EQ(wf->adapter_lifecycle().loads, 2u);
}

TEST(LoraWorkflow, ConcurrentRequestsKeepTheirOwnAdapters) {
  auto wf = Workflow::load(fixture());
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const bool red = (t + i) % 2 == 0;
        const auto y = run(*wf, {true}, {1, 2}, {red ? kRed : kBlue});
        if (y != (red ? std::vector<float>{2, 4} : std::vector<float>{7, 10})) ++wrong[t];
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong, (std::vector<int>{0, 0, 0, 0}));
}

TEST(LoraWorkflow, RefusesAnUnknownAdapterNamingIt) {
  auto wf = Workflow::load(fixture());
  try {
    run(*wf, {true}, {1, 2}, {{{"purple", 1}}});
    FAIL() << "an unknown adapter ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown adapter 'purple' (declared: blue, green, peft, red)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(wf->adapter_lifecycle().loads, 0u);
}

}  // namespace
}  // namespace ogai
