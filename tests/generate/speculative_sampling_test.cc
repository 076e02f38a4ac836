// Speculative sampling end to end: with a drafter, the 2nd and 3rd generated tokens follow the
// same distribution as plain sampling (two-sample chi-square at level 0.001 over many seeds), a
// seed fixes the output, low temperatures accept drafts, and logprobs stay per emitted token.
#include <gtest/gtest.h>

#include <map>

#include "base/error.h"
#include "ogai/ogai.h"
#include "tests/sampling/chi_square.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
using Drafter = SpeculativeOptions::Drafter;
using sampling::testing::chi_square_critical;
using sampling::testing::chi_square_two_sample;
const fs::path kSpeculative = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b-speculative";
const fs::path kStories = fs::path(OGAI_BINARY_DIR) / "packages/stories260k";

GenerationOptions sampled(int n, std::uint64_t seed, Drafter drafter, int k = 0) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.ignore_eos = true;
  o.sampling.temperature = 1.0f;
  o.sampling.seed = seed;
  o.speculative.drafter = drafter;
  o.speculative.max_draft_tokens = k;
  return o;
}

struct Histograms {
  std::vector<std::map<std::int32_t, std::int64_t>> at;  // per generated position
  std::int64_t drafted = 0, accepted = 0;
};

// `runs` generations of 3 tokens with seeds first..first+runs-1. With 3 tokens the drafter may propose one
// token after the first: the 2nd token goes through the acceptance rule, the 3rd is the bonus
// token (after an acceptance) or the next step's first token.
Histograms histograms(const Model& model, const std::string& prompt, GenerationOptions o, int first, int runs) {
  Histograms h;
  h.at.resize(3);
  for (int seed = first; seed < first + runs; ++seed) {
    o.sampling.seed = static_cast<std::uint64_t>(seed);
    auto r = model.generate(prompt, o);
    EXPECT_EQ(r.ids.size(), 3u);
    for (std::size_t i = 0; i < std::min<std::size_t>(3, r.ids.size()); ++i) ++h.at[i][r.ids[i]];
    h.drafted += r.draft_tokens;
    h.accepted += r.accepted_draft_tokens;
  }
  return h;
}

sampling::testing::Fit compare(const std::map<std::int32_t, std::int64_t>& a,
                               const std::map<std::int32_t, std::int64_t>& b) {
  std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> cells;
  for (auto [id, n] : a) cells[id].first = n;
  for (auto [id, n] : b) cells[id].second = n;
  std::vector<std::int64_t> x, y;
  for (auto [id, counts] : cells) x.push_back(counts.first), y.push_back(counts.second);
  return chi_square_two_sample(x, y);
}

// Plain vs speculative, same number of runs, disjoint seeds (independent samples: with equal
// seeds the first tokens, and so the later ones, would be correlated). A wrong
// rule (e.g. keeping every draft) shifts the 2nd token's mass onto the draft; the level is 0.001
// for each of the two positions, and the seeds are fixed, so the outcome is deterministic.
void expect_same_distribution(const Model& model, const std::string& prompt, GenerationOptions o, Drafter drafter,
                              int runs, bool expect_acceptance = true) {
  GenerationOptions spec = o;
  spec.speculative.drafter = drafter;
  Histograms plain = histograms(model, prompt, o, 1, runs);
  Histograms fast = histograms(model, prompt, spec, 1 + runs, runs);
  EXPECT_GT(fast.drafted, runs / 2) << "the drafter must propose for the test to mean anything";
  if (expect_acceptance) {
    EXPECT_GT(fast.accepted, runs / 2);
  }
  for (std::size_t pos : {1u, 2u}) {
    auto fit = compare(plain.at[pos], fast.at[pos]);
    ASSERT_GE(fit.df, 2) << "position " << pos;
    EXPECT_LT(fit.statistic, chi_square_critical(fit.df)) << "position " << pos << ": " << fit.statistic
                                                          << " with " << fit.df << " df";
  }
}

TEST(SpeculativeSamplingTest, NgramPreservesTheDistribution) {
  auto model = Model::load(kStories);
  // "Ben" is a likely first token, after which the lookup proposes "went" (accepted ~95% at T = 1).
  const std::string prompt = "Lily and Ben went to the park. Lily and";
  expect_same_distribution(*model, prompt, sampled(3, 0, Drafter::kNone, 1), Drafter::kNgram, 1200);
  GenerationOptions filtered = sampled(3, 0, Drafter::kNone, 1);
  // The presence penalty reads the generated tokens: the 3rd token's distribution depends on
  // whether the 2nd was an accepted draft, which the history must include.
  filtered.sampling.top_k = 20, filtered.sampling.top_p = 0.9f, filtered.sampling.presence_penalty = 1.0f;
  expect_same_distribution(*model, prompt, filtered, Drafter::kNgram, 1200);
}

// The fixture's assistant has random weights: its argmax proposals almost never win at T = 1, so
// this exercises the rejection path (the residual draw) with a real drafter.
TEST(SpeculativeSamplingTest, AssistantPreservesTheDistribution) {
  auto model = Model::load(kSpeculative);
  expect_same_distribution(*model, "The little fox walked down to the river", sampled(3, 0, Drafter::kNone, 1),
                           Drafter::kAssistant, 1000, false);
}

TEST(SpeculativeSamplingTest, SameSeedSameTokens) {
  auto model = Model::load(kStories);
  for (Drafter drafter : {Drafter::kNgram}) {
    GenerationOptions o = sampled(40, 3, drafter, 4);
    o.sampling.temperature = 0.8f;
    auto a = model->generate("Once upon a time", o);
    auto b = model->generate("Once upon a time", o);
    EXPECT_EQ(a.ids, b.ids);
    EXPECT_EQ(a.text, b.text);
    o.sampling.seed = 4;
    EXPECT_NE(model->generate("Once upon a time", o).ids, a.ids);
  }
  auto tiny = Model::load(kSpeculative);
  GenerationOptions o = sampled(20, 3, Drafter::kAssistant, 4);
  EXPECT_EQ(tiny->generate("The little fox", o).ids, tiny->generate("The little fox", o).ids);
}

TEST(SpeculativeSamplingTest, LowTemperatureAcceptsDraftsAndReportsLogprobs) {
  auto model = Model::load(kStories);
  GenerationOptions o = sampled(60, 11, Drafter::kNgram, 4);
  o.sampling.temperature = 0.3f;
  o.logprobs = 2;
  auto r = model->generate("Lily and Ben went to the park. Lily and Ben", o);
  EXPECT_GT(r.accepted_draft_tokens, 0);
  EXPECT_LE(r.accepted_draft_tokens, r.draft_tokens);
  ASSERT_EQ(r.logprobs.size(), r.ids.size());
  for (std::size_t i = 0; i < r.ids.size(); ++i) {
    EXPECT_EQ(r.logprobs[i].id, r.ids[i]);
    EXPECT_EQ(r.logprobs[i].top.size(), 2u);
    EXPECT_LE(r.logprobs[i].logprob, 0.0f);
  }
}

// Stop strings and length limits cut inside accepted runs exactly as in plain decoding: the text
// never holds the stop string, and the reported ids stop where the limit says.
TEST(SpeculativeSamplingTest, StopRulesApplyInsideAcceptedRuns) {
  auto model = Model::load(kStories);
  int stopped = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    GenerationOptions o = sampled(80, seed, Drafter::kNgram, 4);
    o.sampling.temperature = 0.5f;
    o.stop = {"Lily"};
    auto r = model->generate("Lily and Ben went to the park. Lily and Ben", o);
    EXPECT_EQ(r.text.find("Lily"), std::string::npos) << r.text;
    if (r.finish_reason == FinishReason::kStop) ++stopped;
  }
  EXPECT_GT(stopped, 5);
  for (int n : {1, 2, 7, 33}) {
    auto r = model->generate("Lily and Ben went to the park. Lily and Ben", sampled(n, 5, Drafter::kNgram, 4));
    EXPECT_EQ(r.ids.size(), static_cast<std::size_t>(n));
    EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  }
}

}  // namespace
}  // namespace ogai
