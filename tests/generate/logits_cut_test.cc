// Logits only where they are used (onnx/logits_cut.h through generate::Decoder): the cut graph
// gives the same tokens and log-probabilities as the graph as it is, on stories260k and on every
// fixture family, for whole and chunked prefill, prompt log-probabilities and n choices; a step
// knows which rows it got.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "base/file.h"
#include "base/log.h"
#include "generate/decoder.h"
#include "generate/model_impl.h"
#include "ogai/ogai.h"
#include "tests/generate/stories_spec.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

const std::vector<TokenId> kPrompt = {1, 403, 407, 261, 378};

generate::StepOutput prefill(const generate::Decoder& d, std::int64_t keep) {
  kv::KvCache cache(d.spec().cache, 1);
  generate::AttentionState attention(1);
  return d.step(kPrompt, static_cast<std::int64_t>(kPrompt.size()), {}, attention, cache, nullptr, keep);
}

bool same_floats(std::span<const float> a, std::span<const float> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(LogitsCutDecoderTest, AStepKnowsWhichRowsItGot) {
  generate::DecoderSpec whole_spec = testing::stories_spec();
  whole_spec.cut_logits = false;
  const generate::Decoder whole(whole_spec, {});
  const generate::Decoder cut(testing::stories_spec(), {});
  EXPECT_TRUE(whole.keep_input().empty());
  ASSERT_FALSE(cut.keep_input().empty());
  const generate::StepOutput all = prefill(whole, 1);  // not cut: `keep` changes nothing
  EXPECT_EQ(all.logits.shape(), (ort::Shape{1, 5, 512}));
  EXPECT_EQ(all.logits_from, 0);
  const generate::StepOutput last = prefill(cut, 1);
  EXPECT_EQ(last.logits.shape(), (ort::Shape{1, 1, 512}));
  EXPECT_EQ(last.logits_from, 4);
  EXPECT_EQ(last.last_position(), 4);
  EXPECT_TRUE(same_floats(last.row_logits(0, 4), all.row_logits(0, 4)));
  EXPECT_THROW(last.row_logits(0, 3), Error);
  const generate::StepOutput every = prefill(cut, generate::Decoder::kAllLogits);
  EXPECT_EQ(every.logits_from, 0);
  for (std::int64_t p = 0; p < 5; ++p) EXPECT_TRUE(same_floats(every.row_logits(0, p), all.row_logits(0, p))) << p;
}

// stories260k with one more reader of its logits (an ArgMax output): a graph the rewrite declines.
fs::path stories_with_argmax() {
  const fs::path path = fs::path(OGAI_BINARY_DIR) / "logits_cut_test/argmax.onnx";
  fs::create_directories(path.parent_path());
  MappedFile file(testing::stories_spec().artifact);
  ::onnx::ModelProto m;
  EXPECT_TRUE(m.ParseFromArray(file.data(), static_cast<int>(file.size())));
  auto* node = m.mutable_graph()->add_node();
  node->set_op_type("ArgMax");
  node->add_input("logits");
  node->add_output("best");
  auto* out = m.mutable_graph()->add_output();
  out->set_name("best");
  out->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::INT64);
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

TEST(LogitsCutDecoderTest, ADeclinedGraphRunsAsExportedAndSaysWhyOnce) {
  generate::DecoderSpec spec = testing::stories_spec();
  spec.artifact = stories_with_argmax();
  const LogLevel before = log_level();
  set_log_level(LogLevel::kInfo);
  ::testing::internal::CaptureStderr();
  const generate::Decoder d(spec, {});
  const std::string log = ::testing::internal::GetCapturedStderr();
  set_log_level(before);
  EXPECT_TRUE(d.keep_input().empty());
  const std::string reason = "'logits' is also read by other nodes";
  ASSERT_NE(log.find(reason), std::string::npos) << log;
  EXPECT_EQ(log.find(reason, log.find(reason) + 1), std::string::npos) << log;  // once
  const generate::StepOutput out = prefill(d, 1);
  EXPECT_EQ(out.logits.shape(), (ort::Shape{1, 5, 512}));  // every position, whatever `keep` says
  EXPECT_EQ(out.logits_from, 0);
}

// Loads `package` with the cut (the default) or without it (OGAI_LOGITS_CUT=0).
std::shared_ptr<const Model> load(const fs::path& package, bool cut) {
  if (!cut) setenv("OGAI_LOGITS_CUT", "0", 1);
  auto model = Model::load(package);
  unsetenv("OGAI_LOGITS_CUT");
  EXPECT_EQ(model->impl().decoder->keep_input().empty(), !cut) << package;
  return model;
}

void expect_same_entry(const TokenLogprobs& a, const TokenLogprobs& b, const std::string& where) {
  EXPECT_EQ(a.id, b.id) << where;
  EXPECT_EQ(a.logprob, b.logprob) << where;  // exactly: the kept rows are the same floats
  ASSERT_EQ(a.top.size(), b.top.size()) << where;
  for (std::size_t i = 0; i < a.top.size(); ++i) {
    EXPECT_EQ(a.top[i].id, b.top[i].id) << where;
    EXPECT_EQ(a.top[i].logprob, b.top[i].logprob) << where;
  }
}

void expect_same_results(const GenerationResult& a, const GenerationResult& b) {
  EXPECT_EQ(a.ids, b.ids);
  ASSERT_EQ(a.logprobs.size(), b.logprobs.size());
  for (std::size_t i = 0; i < a.logprobs.size(); ++i) expect_same_entry(a.logprobs[i], b.logprobs[i], "token " + std::to_string(i));
  ASSERT_EQ(a.prompt_logprobs.size(), b.prompt_logprobs.size());
  for (std::size_t i = 0; i < a.prompt_logprobs.size(); ++i) {
    ASSERT_EQ(a.prompt_logprobs[i].has_value(), b.prompt_logprobs[i].has_value()) << i;
    if (a.prompt_logprobs[i]) expect_same_entry(*a.prompt_logprobs[i], *b.prompt_logprobs[i], "prompt " + std::to_string(i));
  }
}

void expect_cut_changes_nothing(const fs::path& package, const char* prompt) {
  SCOPED_TRACE(package.string());
  const auto whole = load(package, false);
  const auto cut = load(package, true);
  GenerationOptions o;
  o.max_new_tokens = 12;
  o.logprobs = 5;
  o.sampling.temperature = 0;
  expect_same_results(whole->generate(prompt, o), cut->generate(prompt, o));
  o.prefill_chunk = 3;  // earlier chunks ask for one row, the last for its last
  expect_same_results(whole->generate(prompt, o), cut->generate(prompt, o));
  o.prefill_chunk = 0;
  o.prompt_logprobs = true;  // every position's logits
  const GenerationResult with_prompt = cut->generate(prompt, o);
  EXPECT_GT(with_prompt.prompt_logprobs.size(), 2u);
  expect_same_results(whole->generate(prompt, o), with_prompt);
  o.prompt_logprobs = false;
  o.sampling.temperature = 0.8f;  // sampled, seeded
  o.sampling.seed = 7;
  expect_same_results(whole->generate(prompt, o), cut->generate(prompt, o));
}

TEST(LogitsCutModelTest, StoriesSameTokensAndLogprobs) {
  expect_cut_changes_nothing(fs::path(OGAI_BINARY_DIR) / "packages/stories260k", "Once upon a time, there was");
}

TEST(LogitsCutModelTest, FixtureFamiliesSameTokensAndLogprobs) {
  const fs::path fixtures = fs::path(OGAI_SOURCE_DIR) / "tests/data/packages";
  for (const char* name : {"tiny-e2b", "tiny-e2b-fp16", "tiny-moe", "tiny-recurrent", "tiny-static"})
    expect_cut_changes_nothing(fixtures / name, "hello world and more");
}

TEST(LogitsCutModelTest, NChoicesAndSpeculationOnACutGraph) {
  const fs::path stories = fs::path(OGAI_BINARY_DIR) / "packages/stories260k";
  const auto whole = load(stories, false);
  const auto cut = load(stories, true);
  GenerationOptions o;
  o.max_new_tokens = 24;
  o.sampling.temperature = 0;
  o.speculative.drafter = SpeculativeOptions::Drafter::kNgram;  // verification reads every proposed row
  expect_same_results(whole->generate("Once upon a time, there was a girl. Once upon a time", o),
                      cut->generate("Once upon a time, there was a girl. Once upon a time", o));
}

TEST(SessionCacheModelTest, ACachedCutDecoderGivesTheSameTokens) {
  const fs::path stories = fs::path(OGAI_BINARY_DIR) / "packages/stories260k";
  const fs::path cache = fs::path(OGAI_BINARY_DIR) / "logits_cut_test/session_cache";
  fs::remove_all(cache);
  GenerationOptions o;
  o.max_new_tokens = 16;
  o.logprobs = 3;
  o.sampling.temperature = 0;
  const GenerationResult plain = load(stories, true)->generate("Once upon a time", o);
  setenv("OGAI_SESSION_CACHE", cache.c_str(), 1);
  const GenerationResult building = load(stories, true)->generate("Once upon a time", o);  // writes the entry
  ASSERT_FALSE(fs::is_empty(cache));
  const GenerationResult cached = load(stories, true)->generate("Once upon a time", o);  // reads it
  unsetenv("OGAI_SESSION_CACHE");
  expect_same_results(plain, building);
  EXPECT_EQ(plain.ids, cached.ids);
  ASSERT_EQ(plain.logprobs.size(), cached.logprobs.size());
  for (std::size_t i = 0; i < plain.logprobs.size(); ++i)
    EXPECT_NEAR(plain.logprobs[i].logprob, cached.logprobs[i].logprob, 1e-5f) << i;
}

}  // namespace
}  // namespace ogai
