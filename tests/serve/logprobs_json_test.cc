// The logprobs value of a choice (LogprobsJson, against the stories260k tokenizer) and the
// channel's rule for which entries are reported (with the text they released).
#include <gtest/gtest.h>

#include <filesystem>

#include "serve/openai/api_response.h"
#include "serve/engine/generation_channel.h"
#include "serve/common/logprobs_json.h"

namespace ogai::serve {
namespace {

const Model& stories() {
  static auto model = Model::load(std::filesystem::path(OGAI_BINARY_DIR) / "packages/stories260k");
  return *model;
}

TokenLogprobs entry(std::int32_t id, float logprob, std::vector<TokenLogprob> top = {}) {
  return TokenLogprobs{id, logprob, std::move(top)};
}

TEST(LogprobsJson, ChatShapeWithExactBytes) {
  LogprobsJson lp(stories(), Endpoint::kChat);
  std::vector<TokenLogprobs> entries = {entry(383, -0.5f, {{383, -0.5f}, {229, -2.0f}})};
  nlohmann::json j = nlohmann::json::parse(to_text(lp(entries)));
  ASSERT_EQ(j["content"].size(), 1u);
  EXPECT_TRUE(j["refusal"].is_null());
  const auto& item = j["content"][0];
  EXPECT_EQ(item["token"], " there");
  EXPECT_EQ(item["logprob"], -0.5);
  EXPECT_EQ(item["bytes"], (std::vector<int>{32, 116, 104, 101, 114, 101}));
  ASSERT_EQ(item["top_logprobs"].size(), 2u);
  // <0xE2>: one byte of a multi-byte character; the string shows U+FFFD, the bytes are exact.
  EXPECT_EQ(item["top_logprobs"][1]["token"], "\xEF\xBF\xBD");
  EXPECT_EQ(item["top_logprobs"][1]["bytes"], (std::vector<int>{0xE2}));
  EXPECT_EQ(item["top_logprobs"][1]["logprob"], -2.0);
}

TEST(LogprobsJson, CompletionShapeAndOffsetsAcrossChunks) {
  LogprobsJson lp(stories(), Endpoint::kCompletion);
  std::vector<TokenLogprobs> first = {entry(432, -0.25f, {{432, -0.25f}, {383, -3.0f}}), entry(383, -1.0f)};
  nlohmann::json a = lp(first);
  EXPECT_EQ(a["tokens"], (std::vector<std::string>{",", " there"}));
  EXPECT_EQ(a["token_logprobs"], (std::vector<double>{-0.25, -1.0}));
  EXPECT_EQ(a["text_offset"], (std::vector<int>{0, 1}));
  EXPECT_EQ(a["top_logprobs"][0], (nlohmann::json{{",", -0.25}, {" there", -3.0}}));
  EXPECT_EQ(a["top_logprobs"][1], nlohmann::json::object());
  std::vector<TokenLogprobs> second = {entry(432, -0.75f)};
  EXPECT_EQ(lp(second)["text_offset"], (std::vector<int>{7}));  // continues after ", there"
}

TEST(GenerationChannel, EntriesTravelWithTheTextTheyRelease) {
  GenerationChannel channel(/*keep_text=*/true);
  TokenLogprobs a = entry(1, -1.0f), b = entry(2, -2.0f), eos = entry(3, -3.0f);
  channel.on_token("", &a);     // held back (e.g. incomplete UTF-8)
  channel.on_token("xy", &b);   // releases a's and b's text
  auto update = channel.wait();
  EXPECT_EQ(update.text, "xy");
  ASSERT_EQ(update.logprobs.size(), 2u);
  EXPECT_EQ(update.logprobs[0].id, 1);
  EXPECT_EQ(update.logprobs[1].id, 2);
  channel.on_token("", &eos);  // never released: not reported
  channel.complete(GenerationResult{});
  auto end = channel.wait();
  EXPECT_TRUE(end.logprobs.empty());
  EXPECT_EQ(channel.reported_logprobs(), 2u);
}

TEST(GenerationChannel, ClosingEventReleasesHeldEntriesInWholeMode) {
  GenerationChannel channel(/*keep_text=*/false);
  TokenLogprobs a = entry(1, -1.0f), b = entry(2, -2.0f);
  channel.on_token("", &a);
  channel.on_token("", &b);
  EXPECT_EQ(channel.reported_logprobs(), 0u);
  channel.on_token("tail", nullptr);  // the engine's closing event: text only
  EXPECT_EQ(channel.reported_logprobs(), 2u);
}

}  // namespace
}  // namespace ogai::serve
