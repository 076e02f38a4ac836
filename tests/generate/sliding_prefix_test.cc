// The prefix cache on packages with a sliding_attention group (tiny-e2b, tiny-moe; window 8,
// applied by the graph's GroupQueryAttention local_window_size). ogai keeps a sliding group's KV
// whole (tests/fixtures/sliding_past_test.cc shows why these graphs cannot take a cut past), so a
// cached entry covers every position and is reused for a prompt sharing P tokens with it at P
// itself, however far P lies past the window: never cut, and output with the hit equals output
// without the cache.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>

#include "base/error.h"
#include "generate/engine.h"
#include "generate/model_impl.h"
#include "generate/sequence_factory.h"
#include "ogai/ogai.h"
#include "onnx/graph_info.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<std::int32_t>;

fs::path package_path(const std::string& name) { return fs::path(OGAI_SOURCE_DIR) / "tests/data/packages" / name; }

std::shared_ptr<const Model> load(const std::string& name) {
  static std::map<std::string, std::shared_ptr<const Model>> models;
  auto& m = models[name];
  if (!m) m = Model::load(package_path(name));
  return m;
}

// The graph's window: local_window_size of its GroupQueryAttention nodes.
std::int64_t graph_window(const std::string& name) {
  std::set<std::int64_t> windows;
  for (const auto& node : onnx::read_graph_info(package_path(name) / "model.onnx").attention_nodes) {
    auto it = node.int_attributes.find("local_window_size");
    if (it != node.int_attributes.end() && it->second > 0) windows.insert(it->second);
  }
  OGAI_CHECK(windows.size() == 1);
  return *windows.begin();
}

GenerationOptions greedy(int n) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.logprobs = 3;
  return o;
}

// Runs every prompt in one engine (rows decoded together) with `prefix`; results in order.
std::vector<GenerationResult> run(const Model& model, const std::vector<Ids>& prompts, const GenerationOptions& o,
                                  generate::PrefixCache& prefix) {
  const generate::SequenceModel sm = model.impl().sequence_model();
  generate::EngineLimits limits;
  limits.step_tokens = std::numeric_limits<std::size_t>::max();
  generate::Engine engine(sm, limits, &prefix);
  std::vector<std::shared_ptr<generate::LiveSequence>> sequences;
  for (const auto& ids : prompts) {
    auto request = generate::resolve_request(o, model.impl().config.generation, static_cast<std::int64_t>(ids.size()));
    sequences.push_back(generate::make_sequence({sm, request, ids}));
    engine.add(sequences.back());
  }
  for (int step = 0; !engine.idle() && step < 10000; ++step) engine.step();
  std::vector<GenerationResult> out;
  for (auto& s : sequences) {
    EXPECT_FALSE(s->error());
    out.push_back(std::move(s->result()));
  }
  return out;
}

void expect_same(const GenerationResult& hit, const GenerationResult& solo, const std::string& what) {
  EXPECT_EQ(hit.ids, solo.ids) << what;
  ASSERT_EQ(hit.logprobs.size(), solo.logprobs.size()) << what;
  for (std::size_t i = 0; i < solo.logprobs.size(); ++i)
    EXPECT_NEAR(hit.logprobs[i].logprob, solo.logprobs[i].logprob, 1e-4) << what << " token " << i;
}

// A prompt of `n` tokens: the tokenized corpus text repeated.
Ids prompt_of(const Model& model, std::size_t n, const std::string& text) {
  Ids ids = model.tokenize(text), piece = model.tokenize(text, false);
  while (ids.size() < n) ids.insert(ids.end(), piece.begin(), piece.end());
  ids.resize(n);
  return ids;
}

Ids concat(Ids a, const Ids& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class SlidingPrefixCache : public testing::TestWithParam<std::string> {};

// A prompt sharing P = 3 * window + 3 tokens with a cached entry, then diverging: the hit reuses
// exactly P tokens (the next position attends to P - window + 1 .. P, and positions 0 .. P - 1
// are all held), and generation equals a run without the cache.
TEST_P(SlidingPrefixCache, ReusesAWholeSlidingGroupPastItsWindow) {
  auto model = load(GetParam());
  const std::int64_t window = graph_window(GetParam());
  const std::size_t shared = static_cast<std::size_t>(3 * window + 3);
  generate::PrefixCache prefix(64u << 20);
  const Ids first = prompt_of(*model, shared + 6, "the cat sat on the mat and the dog ran far away");
  run(*model, {first}, greedy(4), prefix);
  Ids second(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(shared));
  second = concat(second, model->tokenize(" she said that it was a very long day", false));
  ASSERT_NE(second[shared], first[shared]) << "the prompts must diverge right after the shared prefix";
  auto hit = run(*model, {second}, greedy(10), prefix)[0];
  const auto stats = prefix.stats();
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(hit.cached_prompt_tokens, static_cast<std::int64_t>(shared));
  EXPECT_EQ(stats.reused_tokens, shared) << "the reuse was cut below the shared prefix";
  expect_same(hit, model->generate(second, greedy(10)), GetParam());
}

// Two finished states of different lengths past the window (3 and 5 windows), then both extended
// in one batch: both hit at their whole entry, and each row equals its solo run without the cache.
TEST_P(SlidingPrefixCache, RowsOfDifferentLengthsPastTheWindowHitTogether) {
  auto model = load(GetParam());
  const std::int64_t window = graph_window(GetParam());
  generate::PrefixCache prefix(64u << 20);
  const std::vector<Ids> firsts = {prompt_of(*model, 3 * window, "once upon a time there was a little girl"),
                                   prompt_of(*model, 5 * window + 1, "the dog ran to the park and played all day")};
  auto turn1 = run(*model, firsts, greedy(5), prefix);
  std::vector<Ids> seconds;
  for (std::size_t i = 0; i < firsts.size(); ++i)
    seconds.push_back(concat(concat(firsts[i], turn1[i].ids), model->tokenize(" and then", false)));
  auto turn2 = run(*model, seconds, greedy(9), prefix);
  EXPECT_EQ(prefix.stats().hits, 2u);
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    // The entry holds the prompt and every generated token but the last (sampled, never fed).
    EXPECT_EQ(turn2[i].cached_prompt_tokens, static_cast<std::int64_t>(firsts[i].size() + turn1[i].ids.size() - 1))
        << "row " << i;
    EXPECT_GT(turn2[i].cached_prompt_tokens, 2 * window) << "row " << i;
    expect_same(turn2[i], model->generate(seconds[i], greedy(9)), GetParam() + " row " + std::to_string(i));
  }
}

INSTANTIATE_TEST_SUITE_P(Packages, SlidingPrefixCache, testing::Values("tiny-e2b", "tiny-moe"), [](const auto& info) {
  std::string name = info.param;
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
});

}  // namespace
}  // namespace ogai
