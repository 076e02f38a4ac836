// The generation engine on real packages: the stories260k golden, every fixture family against a
// cache-free recompute, batching, sampling reproducibility, stop rules and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "generate/decoder.h"
#include "generate/package_config.h"
#include "metadata/package.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kPackages = fs::path(OGAI_BINARY_DIR) / "packages";
const fs::path kFixtures = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages";

const std::vector<std::int32_t> kGolden = {432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267,
                                           337, 410, 408, 419, 292, 411, 322, 265, 282, 295, 433, 426, 385, 328, 432,
                                           358, 394, 261, 370, 432, 352, 266, 268, 388, 426, 338, 391, 266, 267, 337,
                                           335, 312, 432, 398, 312, 286, 267, 414, 270, 333, 415, 426, 13,  438, 310};
const char* kGoldenText =
    ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red "
    "ball. She wanted to play with it, but it was too high.\nLily";

std::shared_ptr<const Model> stories() {
  static auto model = Model::load(kPackages / "stories260k");
  return model;
}

GenerationOptions greedy(int n) {
  GenerationOptions o;
  o.max_new_tokens = n;
  return o;
}

TEST(EngineTest, StoriesGoldenGreedy) {
  auto r = stories()->generate("Once upon a time", greedy(60));
  EXPECT_EQ(r.prompt_ids, (std::vector<std::int32_t>{1, 403, 407, 261, 378}));
  EXPECT_EQ(r.ids, kGolden);
  EXPECT_EQ(r.text, kGoldenText);
  EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  EXPECT_GT(r.timings.onnxruntime_ms, 0);
}

TEST(EngineTest, StreamedTextEqualsFinalText) {
  std::string streamed;
  int events = 0;
  auto r = stories()->generate("Once upon a time", greedy(60), [&](const StreamEvent& e) {
    streamed += e.text;
    ++events;
    return true;
  });
  EXPECT_EQ(streamed, r.text);
  EXPECT_GE(events, 60);
}

TEST(EngineTest, CancelStopsAtOnce) {
  int events = 0;
  auto r = stories()->generate("Once upon a time", greedy(60), [&](const StreamEvent&) { return ++events < 5; });
  EXPECT_EQ(r.finish_reason, FinishReason::kCancelled);
  EXPECT_EQ(r.ids.size(), 5u);
}

TEST(EngineTest, StopStringIsNeverEmittedEvenAcrossTokens) {
  GenerationOptions o = greedy(60);
  o.stop = {"girl na"};  // spans the tokens " girl" and " named"
  std::string streamed;
  auto r = stories()->generate("Once upon a time", o, [&](const StreamEvent& e) {
    streamed += e.text;
    return true;
  });
  EXPECT_EQ(r.finish_reason, FinishReason::kStop);
  EXPECT_EQ(r.text, ", there was a little ");
  EXPECT_EQ(streamed, r.text);
}

TEST(EngineTest, EosEndsGenerationAndIsNotText) {
  // stories260k does not end a story within its context greedily: steer it to EOS (id 2).
  GenerationOptions o = greedy(50);
  o.sampling.logit_bias[2] = 100.0f;
  auto r = stories()->generate("Once upon a time", o);
  EXPECT_EQ(r.finish_reason, FinishReason::kEos);
  EXPECT_EQ(r.ids, (std::vector<std::int32_t>{2}));
  EXPECT_EQ(r.text, "");
  o.ignore_eos = true;
  o.max_new_tokens = 3;
  auto longer = stories()->generate("Once upon a time", o);
  EXPECT_EQ(longer.ids.size(), 3u);
  EXPECT_EQ(longer.finish_reason, FinishReason::kLength);
  GenerationOptions stop_id = greedy(50);
  stop_id.stop_token_ids = {kGolden[3]};
  auto stopped = stories()->generate("Once upon a time", stop_id);
  EXPECT_EQ(stopped.finish_reason, FinishReason::kStop);
  EXPECT_EQ(stopped.ids, std::vector<std::int32_t>(kGolden.begin(), kGolden.begin() + 4));
  EXPECT_EQ(stopped.text, stories()->detokenize(std::span(kGolden).first(3), true));
}

TEST(EngineTest, SameSeedSameTextAndSeedsDiffer) {
  GenerationOptions o = greedy(40);
  o.sampling.temperature = 1.0f;
  o.sampling.seed = 7;
  auto a = stories()->generate("Once upon a time", o);
  auto b = stories()->generate("Once upon a time", o);
  EXPECT_EQ(a.ids, b.ids);
  o.sampling.seed = 8;
  auto c = stories()->generate("Once upon a time", o);
  EXPECT_NE(a.ids, c.ids);
  EXPECT_NE(a.ids, kGolden);
}

TEST(EngineTest, ContextReusesThePrefix) {
  Context ctx(*stories());
  auto first = stories()->generate("Once upon a time", greedy(10), {}, &ctx);
  EXPECT_EQ(ctx.tokens().size(), 5u + 10u - 1u);
  std::vector<std::int32_t> prompt = first.prompt_ids;
  prompt.insert(prompt.end(), first.ids.begin(), first.ids.end());
  auto cont = stories()->generate(prompt, greedy(10), {}, &ctx);
  auto fresh = stories()->generate(prompt, greedy(10));
  EXPECT_EQ(cont.ids, fresh.ids);
  EXPECT_EQ(cont.ids, std::vector<std::int32_t>(kGolden.begin() + 10, kGolden.begin() + 20));
  // A different prompt rewinds to the common prefix and still matches a fresh run.
  auto other = stories()->generate("Once upon a day", greedy(10), {}, &ctx);
  EXPECT_EQ(other.ids, stories()->generate("Once upon a day", greedy(10)).ids);
}

TEST(EngineTest, ChunkedPrefillEqualsWholePrefill) {
  GenerationOptions o = greedy(20);
  o.prefill_chunk = 2;
  EXPECT_EQ(stories()->generate("Once upon a time", o).ids,
            std::vector<std::int32_t>(kGolden.begin(), kGolden.begin() + 20));
}

TEST(EngineTest, BatchOfDifferentLengthsEqualsEachAlone) {
  std::vector<std::string> prompts = {"Once upon a time", "The cat", "Lily and Tom went to the park to play"};
  auto batch = stories()->generate_batch(prompts, greedy(30));
  ASSERT_EQ(batch.size(), 3u);
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    auto alone = stories()->generate(prompts[i], greedy(30));
    EXPECT_EQ(batch[i].ids, alone.ids) << prompts[i];
    EXPECT_EQ(batch[i].text, alone.text) << prompts[i];
    EXPECT_EQ(batch[i].finish_reason, alone.finish_reason);
  }
}

TEST(EngineTest, ConcurrentRequestsOnOneModelAreIndependent) {
  std::vector<std::thread> threads;
  std::vector<GenerationResult> results(4);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      GenerationOptions o = greedy(30);
      if (i % 2 == 1) {
        o.sampling.temperature = 0.9f;
        o.sampling.seed = 11;
      }
      results[static_cast<std::size_t>(i)] = stories()->generate("Once upon a time", o);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[0].ids, std::vector<std::int32_t>(kGolden.begin(), kGolden.begin() + 30));
  EXPECT_EQ(results[2].ids, results[0].ids);
  EXPECT_EQ(results[1].ids, results[3].ids);
  EXPECT_NE(results[1].ids, results[0].ids);
}

TEST(EngineTest, PromptOverTheContextIsAClearError) {
  std::vector<std::int32_t> long_prompt(600, 261);
  try {
    stories()->generate(long_prompt, greedy(5));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("512"), std::string::npos) << e.what();
  }
  GenerationOptions o = greedy(5);
  o.truncate_prompt = true;
  auto r = stories()->generate(long_prompt, o);
  EXPECT_EQ(r.prompt_ids.size(), 507u);  // room left for the 5 new tokens
  EXPECT_EQ(r.ids.size(), 5u);
  EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  o.max_new_tokens.reset();
  EXPECT_EQ(stories()->generate(long_prompt, o).prompt_ids.size(), 511u);  // unbounded: at least one token
}

TEST(EngineTest, InvalidSamplingValuesNameTheField) {
  GenerationOptions o = greedy(5);
  o.sampling.temperature = -1.0f;
  try {
    stories()->generate("x", o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("temperature"), std::string::npos) << e.what();
  }
  o = greedy(5);
  o.sampling.top_p = 1.5f;
  EXPECT_THROW(stories()->generate("x", o), Error);
  o = greedy(-1);  // 0 is prefill only (prompt_logprobs_test.cc)
  EXPECT_THROW(stories()->generate("x", o), Error);
}

TEST(EngineTest, MissingPackageIsNotFound) {
  try {
    Model::load("/nonexistent/package");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/package"), std::string::npos) << e.what();
  }
}

TEST(EngineTest, WorkflowsWithTheirOwnLoopAreRefusedNotRunBare) {
  // The conformance decoder fixture drives its decoder with sampler/termination policy graphs in a
  // loop; running its decoder alone would ignore them.
  auto package = metadata::load_package(fs::path(OGAI_SHARED_DIR) / "conformance/metadata/fixtures/decoder");
  try {
    generate::make_package_config(package);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("loop or branch"), std::string::npos) << e.what();
  }
}

TEST(EngineTest, ChatTemplateRenders) {
  auto model = Model::load(kFixtures / "tiny-e2b");
  ASSERT_TRUE(model->info().has_chat_template);
  std::vector<ChatMessage> messages = {{"user", "hi"}};
  EXPECT_EQ(model->render_chat(messages, true), "<bos><start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n");
  EXPECT_EQ(model->info().eos_token_ids, (std::vector<std::int32_t>{1, 5}));
  EXPECT_EQ(model->info().vocab_size, 515);
}

// Greedy decoding with the state service equals recomputing the whole sequence without a cache
// at every step, token for token, over more than 3x the sliding window (8).
void expect_cache_equals_recompute(const fs::path& package, kv::StorageMode mode, float tolerance) {
  SCOPED_TRACE(package.string());
  auto config = generate::make_package_config(metadata::load_package(package));
  config.decoder.cache.mode = mode;
  generate::Decoder decoder(config.decoder, {});
  std::vector<TokenId> sequence = {2, 330, 344, 337, 308, 406};
  kv::KvCache cache(decoder.spec().cache, 1);
  generate::AttentionState attention(1);
  auto out = decoder.step(sequence, static_cast<std::int64_t>(sequence.size()), {}, attention, cache);
  std::int64_t position = static_cast<std::int64_t>(sequence.size()) - 1;
  for (int step = 0; step < 30; ++step) {
    std::vector<float> scratch;
    auto cached = out.row_logits(0, position, scratch);
    std::vector<float> cached_copy(cached.begin(), cached.end());
    kv::KvCache fresh_cache(decoder.spec().cache, 1);
    generate::AttentionState fresh_attention(1);
    auto full = decoder.step(sequence, static_cast<std::int64_t>(sequence.size()), {}, fresh_attention, fresh_cache);
    std::vector<float> scratch2;
    auto recomputed = full.row_logits(0, static_cast<std::int64_t>(sequence.size()) - 1, scratch2);
    ASSERT_EQ(cached_copy.size(), recomputed.size());
    float worst = 0;
    for (std::size_t i = 0; i < recomputed.size(); ++i)
      worst = std::max(worst, std::abs(recomputed[i] - cached_copy[i]));
    ASSERT_LE(worst, tolerance) << "step " << step;
    auto token = std::max_element(cached_copy.begin(), cached_copy.end()) - cached_copy.begin();
    ASSERT_EQ(token, std::max_element(recomputed.begin(), recomputed.end()) - recomputed.begin()) << "step " << step;
    sequence.push_back(token);
    TokenId next = token;
    out = decoder.step(std::span<const TokenId>(&next, 1), 1, {}, attention, cache);
    position = 0;
  }
}

TEST(EngineTest, CacheEqualsRecomputeStories) {
  expect_cache_equals_recompute(kPackages / "stories260k", kv::StorageMode::kAppend, 1e-3f);
}
TEST(EngineTest, CacheEqualsRecomputeTinyE2b) {
  expect_cache_equals_recompute(kFixtures / "tiny-e2b", kv::StorageMode::kAppend, 1e-3f);
  expect_cache_equals_recompute(kFixtures / "tiny-e2b", kv::StorageMode::kSharedBuffer, 1e-3f);
}
TEST(EngineTest, CacheEqualsRecomputeTinyE2bFp16) {
  expect_cache_equals_recompute(kFixtures / "tiny-e2b-fp16", kv::StorageMode::kAppend, 0.15f);
  expect_cache_equals_recompute(kFixtures / "tiny-e2b-fp16", kv::StorageMode::kSharedBuffer, 0.15f);
}
TEST(EngineTest, CacheEqualsRecomputeStateFamilies) {
  expect_cache_equals_recompute(kFixtures / "tiny-static", kv::StorageMode::kAppend, 1e-3f);
  expect_cache_equals_recompute(kFixtures / "tiny-recurrent", kv::StorageMode::kAppend, 1e-3f);
}
TEST(EngineTest, CacheEqualsRecomputeTinyMoe) {
  expect_cache_equals_recompute(kFixtures / "tiny-moe", kv::StorageMode::kAppend, 1e-3f);
  expect_cache_equals_recompute(kFixtures / "tiny-moe", kv::StorageMode::kSharedBuffer, 1e-3f);
}

}  // namespace
}  // namespace ogai

#include <nlohmann/json.hpp>

#include "base/file.h"

namespace ogai {
namespace {

// The engine's greedy output equals the independent numpy reference's (tools/fixtures), written
// into the build folder by the fixture_reference ctest fixture.
void expect_reference_greedy(const std::string& package) {
  SCOPED_TRACE(package);
  auto reference =
      nlohmann::json::parse(read_file(fs::path(OGAI_BINARY_DIR) / "fixtures/reference" / package / "reference.json"));
  auto model = Model::load(kFixtures / package);
  const auto& prompts = reference.at("prompt_ids");
  const auto& greedy_ids = reference.at("greedy_ids");
  ASSERT_FALSE(prompts.empty());
  for (std::size_t i = 0; i < prompts.size(); ++i) {
    auto prompt = prompts[i].get<std::vector<std::int32_t>>();
    auto expected = greedy_ids[i].get<std::vector<std::int32_t>>();
    GenerationOptions o = greedy(static_cast<int>(expected.size()));
    o.ignore_eos = true;
    EXPECT_EQ(model->generate(prompt, o).ids, expected) << "prompt " << i;
  }
}

TEST(EngineTest, GreedyMatchesNumpyReferenceTinyE2b) { expect_reference_greedy("tiny-e2b"); }
TEST(EngineTest, GreedyMatchesNumpyReferenceTinyMoe) { expect_reference_greedy("tiny-moe"); }
TEST(EngineTest, GreedyMatchesNumpyReferenceStaticCache) { expect_reference_greedy("tiny-static"); }
TEST(EngineTest, GreedyMatchesNumpyReferenceRecurrentState) { expect_reference_greedy("tiny-recurrent"); }

TEST(EngineTest, StaticCacheRefusesWritesPastItsCapacity) {
  auto model = Model::load(kFixtures / "tiny-static");
  EXPECT_EQ(model->info().context_length, 64);
  std::vector<std::int32_t> prompt(60, 300);
  GenerationOptions o;
  o.max_new_tokens = 10;
  auto r = model->generate(prompt, o);  // the context (= capacity) ends generation, never a bad write
  EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  EXPECT_EQ(r.prompt_ids.size() + r.ids.size(), 64u);
  std::vector<std::int32_t> too_long(64, 300);
  EXPECT_THROW(model->generate(too_long, o), Error);
}

// Recurrent state cannot rewind: a context restarts from zero, speculative verification restores a
// snapshot and replays; both must equal plain fresh generation.
TEST(EngineTest, RecurrentStateWithContextAndSpeculation) {
  auto model = Model::load(kFixtures / "tiny-recurrent");
  GenerationOptions o;
  o.max_new_tokens = 24;
  auto fresh = model->generate("The little fox walked down to the river", o);
  Context ctx(*model);
  model->generate("The little fox jumped", o, {}, &ctx);
  EXPECT_EQ(model->generate("The little fox walked down to the river", o, {}, &ctx).ids, fresh.ids);
  GenerationOptions spec = o;
  spec.speculative.drafter = SpeculativeOptions::Drafter::kNgram;
  spec.speculative.max_draft_tokens = 3;
  spec.speculative.ngram_max = 1;  // the fixture's random text repeats single tokens only
  auto speculative = model->generate("The little fox walked down to the river", spec);
  EXPECT_EQ(speculative.ids, fresh.ids);
  EXPECT_GT(speculative.draft_tokens, 0);
}

}  // namespace
}  // namespace ogai
