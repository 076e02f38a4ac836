// Speculative decoding: drafters propose, the target verifies; greedy output must equal plain
// greedy decoding token for token (sampling: speculative_sampling_test.cc), and the assistant
// drafter must reproduce the numpy reference chain.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "generate/assistant_drafter.h"
#include "generate/ngram_drafter.h"
#include "generate/package_config.h"
#include "generate/sequence_steps.h"
#include "metadata/package.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kSpeculative = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b-speculative";
const fs::path kStories = fs::path(OGAI_BINARY_DIR) / "packages/stories260k";

GenerationOptions greedy(int n, SpeculativeOptions::Drafter drafter = SpeculativeOptions::Drafter::kNone, int k = 0) {
  GenerationOptions o;
  o.max_new_tokens = n;
  o.speculative.drafter = drafter;
  o.speculative.max_draft_tokens = k;
  return o;
}

TEST(NgramDrafterTest, ContinuesTheMostRecentEarlierOccurrence) {
  generate::NgramDrafter drafter(3);
  std::vector<std::int32_t> history = {5, 6, 7, 8, 1, 5, 6, 9, 2, 5, 6};
  std::vector<std::int32_t> out;
  drafter.propose({history, nullptr, nullptr, 0, 2}, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{9, 2}));  // "5 6" last seen before "9 2", not "7 8"
  out.clear();
  history = {1, 2, 3, 4};
  drafter.propose({history, nullptr, nullptr, 0, 4}, out);
  EXPECT_TRUE(out.empty());
  history = {3, 4, 1, 2, 3, 4};
  drafter.propose({history, nullptr, nullptr, 0, 10}, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{1, 2, 3, 4}));  // stops at the end of the history
  EXPECT_THROW(generate::NgramDrafter(0), Error);
}

// A match of the last token alone proposes nothing (ngram_max >= 2): its proposals are mostly
// rejected and would close the row's gate; with ngram_max 1 it is the only rule, and proposes.
TEST(NgramDrafterTest, OneMatchingTokenProposesNothingUnlessItIsTheOnlyRule) {
  const std::vector<std::int32_t> history = {4, 1, 2, 3, 9, 4};  // "4" recurs, "9 4" does not
  std::vector<std::int32_t> out;
  generate::NgramDrafter(3).propose({history, nullptr, nullptr, 0, 4}, out);
  EXPECT_TRUE(out.empty());
  generate::NgramDrafter(2).propose({history, nullptr, nullptr, 0, 4}, out);
  EXPECT_TRUE(out.empty());
  generate::NgramDrafter(1).propose({history, nullptr, nullptr, 0, 4}, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{1, 2, 3, 9}));
  out.clear();
  const std::vector<std::int32_t> pair = {9, 4, 7, 3, 9, 4};  // "9 4" recurs: two tokens match
  generate::NgramDrafter(3).propose({pair, nullptr, nullptr, 0, 4}, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{7, 3, 9, 4}));
}

// The assistant drafter, fed by the engine's own KV cache and hidden state, proposes exactly the
// chain the numpy reference computed (tools/fixtures), in both KV storage modes.
TEST(AssistantDrafterTest, ProposalMatchesTheReferenceChain) {
  auto reference = nlohmann::json::parse(
      read_file(fs::path(OGAI_BINARY_DIR) / "fixtures/reference/tiny-e2b-speculative/reference.json"));
  auto prompt = reference.at("prompt_ids")[0].get<std::vector<std::int32_t>>();
  auto chain = reference.at("draft_tokens").get<std::vector<std::int32_t>>();
  for (auto mode : {kv::StorageMode::kAppend, kv::StorageMode::kSharedBuffer}) {
    auto config = generate::make_package_config(metadata::load_package(kSpeculative));
    ASSERT_TRUE(config.assistant) << config.assistant_unavailable;
    config.decoder.cache.mode = mode;
    generate::Decoder decoder(config.decoder, {});
    generate::AssistantDrafter drafter(std::move(*config.assistant), {});
    generate::SequenceState state(decoder);
    double run_seconds = 0;
    auto out = generate::feed(decoder, state, prompt, 0, run_seconds);
    std::vector<float> scratch;
    auto logits = out.row_logits(0, static_cast<std::int64_t>(prompt.size()) - 1, scratch);
    auto first = static_cast<std::int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    ASSERT_EQ(first, chain[0]);
    std::vector<std::int32_t> history = prompt;
    history.push_back(first);
    std::vector<std::int32_t> proposal;
    drafter.propose({history, &state.cache, &out.hidden, static_cast<std::int64_t>(prompt.size()) - 1,
                     static_cast<int>(chain.size()) - 1},
                    proposal);
    EXPECT_EQ(proposal, std::vector<std::int32_t>(chain.begin() + 1, chain.end()));
  }
}

TEST(SpeculativeTest, AssistantOutputEqualsPlainGreedy) {
  auto model = Model::load(kSpeculative);
  for (const char* prompt : {"The little fox walked down to the river", "<start_of_turn>user\nhello<end_of_turn>\n"}) {
    auto plain = model->generate(prompt, greedy(40));
    for (int k : {1, 2, 4}) {
      auto spec = model->generate(prompt, greedy(40, SpeculativeOptions::Drafter::kAssistant, k));
      EXPECT_EQ(spec.ids, plain.ids) << prompt << " k=" << k;
      EXPECT_EQ(spec.text, plain.text);
      EXPECT_EQ(spec.finish_reason, plain.finish_reason);
      EXPECT_GT(spec.draft_tokens, 0);
    }
  }
  EXPECT_THROW(model->generate("x", greedy(5, SpeculativeOptions::Drafter::kAssistant, 5)), Error);  // > width 4
}

TEST(SpeculativeTest, NgramOutputEqualsPlainGreedyAndAcceptsDrafts) {
  auto model = Model::load(kStories);
  int accepted = 0;
  for (const char* prompt : {"Once upon a time", "Lily and Ben went to the park. Lily and Ben", "The cat"}) {
    auto plain = model->generate(prompt, greedy(120));
    auto spec = model->generate(prompt, greedy(120, SpeculativeOptions::Drafter::kNgram, 4));
    EXPECT_EQ(spec.ids, plain.ids) << prompt;
    EXPECT_EQ(spec.text, plain.text) << prompt;
    accepted += spec.accepted_draft_tokens;
    EXPECT_LE(spec.accepted_draft_tokens, spec.draft_tokens);
  }
  EXPECT_GT(accepted, 0);  // story text repeats itself (how many are verified depends on the measured width cost)
}

TEST(SpeculativeTest, StopRulesApplyInsideAcceptedRuns) {
  auto model = Model::load(kStories);
  GenerationOptions o = greedy(200, SpeculativeOptions::Drafter::kNgram, 4);
  o.stop = {"park"};
  GenerationOptions p = o;
  p.speculative.drafter = SpeculativeOptions::Drafter::kNone;
  auto spec = model->generate("Once upon a time", o);
  auto plain = model->generate("Once upon a time", p);
  EXPECT_EQ(spec.finish_reason, FinishReason::kStop);
  EXPECT_EQ(spec.ids, plain.ids);
  EXPECT_EQ(spec.text, plain.text);
  for (int n : {1, 7, 33}) {
    auto s = model->generate("Once upon a time", greedy(n, SpeculativeOptions::Drafter::kNgram, 4));
    EXPECT_EQ(s.ids.size(), static_cast<std::size_t>(n));
    EXPECT_EQ(s.finish_reason, FinishReason::kLength);
  }
}

TEST(SpeculativeTest, ContextStaysConsistentAcrossSpeculativeTurns) {
  auto model = Model::load(kStories);
  Context ctx(*model);
  auto first = model->generate("Once upon a time", greedy(30, SpeculativeOptions::Drafter::kNgram, 4), {}, &ctx);
  EXPECT_EQ(ctx.tokens().size(), first.prompt_ids.size() + first.ids.size() - 1);
  std::vector<std::int32_t> prompt = first.prompt_ids;
  prompt.insert(prompt.end(), first.ids.begin(), first.ids.end());
  auto cont = model->generate(prompt, greedy(30, SpeculativeOptions::Drafter::kNgram, 4), {}, &ctx);
  EXPECT_EQ(cont.ids, model->generate(prompt, greedy(30)).ids);
}

TEST(SpeculativeTest, UnsupportedRequestsFailClearly) {
  auto model = Model::load(kStories);
  try {
    model->generate("x", greedy(5, SpeculativeOptions::Drafter::kAssistant));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no speculative section"), std::string::npos) << e.what();
  }
  GenerationOptions logprobs = greedy(5, SpeculativeOptions::Drafter::kNgram);
  logprobs.logprobs = 1;
  logprobs.prompt_logprobs = true;
  try {
    model->generate("x", logprobs);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.where(), "prompt_logprobs");
  }
  GenerationOptions negative = greedy(5, SpeculativeOptions::Drafter::kNgram, -1);
  EXPECT_THROW(model->generate("x", negative), Error);
}

// Batches decode speculatively too (the rows verify in the engine's shared run). Proposals are
// verified only while they pay for the batch's width (speculation_width.h), so the drafted total
// is checked, not each row's.
// The second prompt's reply repeats two-token runs by its 11th token (the lookup matches two tokens
// at least, ngram_drafter.h).
TEST(SpeculativeTest, BatchRowsEqualPlainGreedy) {
  auto model = Model::load(kStories);
  std::vector<std::string> prompts = {"Once upon a time", "Lily and Tom went to the park"};
  auto batch = model->generate_batch(prompts, greedy(20, SpeculativeOptions::Drafter::kNgram, 4));
  int drafted = 0;
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    EXPECT_EQ(batch[i].ids, model->generate(prompts[i], greedy(20)).ids) << prompts[i];
    drafted += batch[i].draft_tokens;
  }
  EXPECT_GT(drafted, 0);
}

}  // namespace
}  // namespace ogai
