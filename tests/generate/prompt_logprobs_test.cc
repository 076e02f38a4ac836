// Prompt log-probabilities (GenerationOptions::prompt_logprobs): every entry equals a log-softmax
// computed here from one independent cache-free run of the graph over the whole prompt; chunked
// prefill and a reused Context give the same values; max_new_tokens 0 prefills only; what is not
// supported fails clearly.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "generate/decoder.h"
#include "generate/package_config.h"
#include "generate/prompt_logprobs.h"
#include "metadata/package.h"
#include "ogai/ogai.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;
const fs::path kStories = fs::path(OGAI_BINARY_DIR) / "packages" / "stories260k";
const fs::path kTinyE2b = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages/tiny-e2b";

// log_softmax(prompt)[i][v]: the log-probability of token v after prompt[0..i], in double, from one
// decoder step over the whole prompt with an empty cache.
std::vector<std::vector<double>> reference_rows(const fs::path& package, const std::vector<std::int32_t>& prompt) {
  generate::Decoder decoder(generate::make_package_config(metadata::load_package(package)).decoder, {});
  std::vector<TokenId> ids(prompt.begin(), prompt.end());
  kv::KvCache cache(decoder.spec().cache, 1);
  generate::AttentionState attention(1);
  auto out = decoder.step(ids, static_cast<std::int64_t>(ids.size()), {}, attention, cache);
  std::vector<std::vector<double>> rows;
  std::vector<float> scratch;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto row = out.row_logits(0, static_cast<std::int64_t>(i), scratch);
    double max = -INFINITY, sum = 0;
    for (float x : row) max = std::max(max, static_cast<double>(x));
    for (float x : row) sum += std::exp(x - max);
    std::vector<double> lp(row.size());
    for (std::size_t v = 0; v < row.size(); ++v) lp[v] = row[v] - max - std::log(sum);
    rows.push_back(std::move(lp));
  }
  return rows;
}

GenerationOptions prompt_options(int max_new_tokens, int top) {
  GenerationOptions o;
  o.max_new_tokens = max_new_tokens;
  o.logprobs = top;
  o.prompt_logprobs = true;
  return o;
}

void expect_matches(const std::vector<std::vector<double>>& ref, const GenerationResult& r, int top) {
  ASSERT_EQ(r.prompt_logprobs.size(), r.prompt_ids.size());
  ASSERT_GE(r.prompt_ids.size(), 3u);
  EXPECT_FALSE(r.prompt_logprobs[0].has_value());
  for (std::size_t i = 1; i < r.prompt_ids.size(); ++i) {
    SCOPED_TRACE("prompt position " + std::to_string(i));
    ASSERT_TRUE(r.prompt_logprobs[i].has_value());
    const TokenLogprobs& e = *r.prompt_logprobs[i];
    const std::vector<double>& lp = ref[i - 1];
    EXPECT_EQ(e.id, r.prompt_ids[i]);
    EXPECT_NEAR(e.logprob, lp[static_cast<std::size_t>(e.id)], 1e-4);
    ASSERT_EQ(e.top.size(), static_cast<std::size_t>(top));
    const double best = *std::max_element(lp.begin(), lp.end());
    EXPECT_NEAR(e.top[0].logprob, best, 1e-4);
    for (const TokenLogprob& t : e.top) EXPECT_NEAR(t.logprob, lp[static_cast<std::size_t>(t.id)], 1e-4);
  }
}

void expect_prompt_logprobs(const fs::path& package, const char* prompt) {
  auto model = Model::load(package);
  auto whole = model->generate(prompt, prompt_options(3, 4));
  expect_matches(reference_rows(package, whole.prompt_ids), whole, 4);
  EXPECT_EQ(whole.ids.size(), whole.logprobs.size());
  // Chunked prefill reads every chunk's logits: the same entries.
  GenerationOptions chunked = prompt_options(3, 4);
  chunked.prefill_chunk = 2;
  auto r = model->generate(prompt, chunked);
  ASSERT_EQ(r.prompt_logprobs.size(), whole.prompt_logprobs.size());
  for (std::size_t i = 1; i < r.prompt_logprobs.size(); ++i) {
    EXPECT_NEAR(r.prompt_logprobs[i]->logprob, whole.prompt_logprobs[i]->logprob, 1e-4) << i;
    EXPECT_EQ(r.prompt_logprobs[i]->top[0].id, whole.prompt_logprobs[i]->top[0].id) << i;
  }
  EXPECT_EQ(r.ids, whole.ids);
}

TEST(PromptLogprobsTest, StoriesMatchesOneUncachedRun) {
  expect_prompt_logprobs(kStories, "Once upon a time, there was");
}
TEST(PromptLogprobsTest, TinyE2bMatchesOneUncachedRun) { expect_prompt_logprobs(kTinyE2b, "hello world and more"); }

TEST(PromptLogprobsTest, ZeroNewTokensPrefillsOnly) {
  auto model = Model::load(kStories);
  auto r = model->generate("Once upon a time", prompt_options(0, 2));
  EXPECT_TRUE(r.ids.empty());
  EXPECT_TRUE(r.logprobs.empty());
  EXPECT_TRUE(r.text.empty());
  EXPECT_EQ(r.finish_reason, FinishReason::kLength);
  expect_matches(reference_rows(kStories, r.prompt_ids), r, 2);
  GenerationOptions plain;
  plain.max_new_tokens = 0;  // also without prompt logprobs: prefill only
  EXPECT_TRUE(model->generate("Once upon a time", plain).ids.empty());
}

TEST(PromptLogprobsTest, ContextRecomputesTheReusedPrefix) {
  auto model = Model::load(kStories);
  Context context(*model);
  GenerationOptions warm;
  warm.max_new_tokens = 2;
  model->generate("Once upon a time, there was", warm, {}, &context);
  auto r = model->generate("Once upon a time, there was", prompt_options(1, 2), {}, &context);
  expect_matches(reference_rows(kStories, r.prompt_ids), r, 2);
}

TEST(PromptLogprobsTest, UnsupportedCombinationsFailClearly) {
  auto model = Model::load(kStories);
  GenerationOptions no_n;
  no_n.prompt_logprobs = true;
  try {
    model->generate("Once", no_n);
    FAIL() << "prompt_logprobs without logprobs was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "prompt_logprobs");
  }
  GenerationOptions negative;
  negative.max_new_tokens = -1;
  EXPECT_THROW(model->generate("Once", negative), Error);
  GenerationOptions speculative = prompt_options(2, 1);
  speculative.speculative.drafter = SpeculativeOptions::Drafter::kNgram;
  try {
    model->generate("Once upon", speculative);
    FAIL() << "prompt logprobs with speculative decoding was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
  }
  std::vector<std::string> prompts = {"Once", "upon"};
  EXPECT_THROW(model->generate_batch(prompts, prompt_options(2, 1)), Error);
}

// A graph whose logits hold only the last position cannot give prompt logprobs: a clear error.
TEST(PromptLogprobsTest, LastPositionOnlyLogitsAreRefused) {
  const std::vector<std::int32_t> prompt = {1, 2, 3};
  std::vector<std::optional<TokenLogprobs>> entries;
  generate::PromptLogprobs recorder(prompt, 1, entries);
  generate::StepOutput out;
  out.logits = ort::Tensor::zeros(DataType::kFloat32, {1, 1, 8});
  try {
    recorder.observe(out, 0, 3);
    FAIL() << "one logits row for three fed tokens was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_EQ(e.where(), "prompt_logprobs");
  }
  out.logits = ort::Tensor::zeros(DataType::kFloat32, {1, 3, 8});
  recorder.observe(out, 0, 3);  // all positions: entries 1 and 2 (uniform row: log(1/8))
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_FALSE(entries[0]);
  EXPECT_NEAR(entries[2]->logprob, -std::log(8.0), 1e-6);
}

}  // namespace
}  // namespace ogai
