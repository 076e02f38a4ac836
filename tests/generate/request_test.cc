// Request options against the package: request > generation.defaults > ogai's defaults, and
// generation.overrides gating what a request may set.
#include "generate/request.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {
namespace {

TEST(RequestTest, OgaiDefaultsAreGreedyWithoutLimits) {
  auto r = resolve_request({}, {}, 5);
  EXPECT_TRUE(r.sampling.greedy());
  EXPECT_FALSE(r.stop.max_new_tokens.has_value());
  EXPECT_FALSE(r.stop.context_limit.has_value());
}

TEST(RequestTest, SettingATemperatureSamples) {
  GenerationOptions o;
  o.sampling.temperature = 0.7f;
  auto r = resolve_request(o, {}, 5);
  EXPECT_FALSE(r.sampling.greedy());
  EXPECT_FLOAT_EQ(r.sampling.temperature, 0.7f);
  o.sampling.do_sample = false;  // an explicit do_sample wins
  EXPECT_TRUE(resolve_request(o, {}, 5).sampling.greedy());
  o = {};
  o.sampling.temperature = 0.0f;
  EXPECT_TRUE(resolve_request(o, {}, 5).sampling.greedy());
}

TEST(RequestTest, PackageDefaultsApplyUnlessTheRequestSets) {
  PackageGeneration package;
  package.defaults.do_sample = true;
  package.defaults.temperature = 0.6;
  package.defaults.top_k = 40;
  package.defaults.max_length = 100;
  package.eos_ids = {2};
  package.context_limit = 512;
  auto r = resolve_request({}, package, 30);
  EXPECT_FALSE(r.sampling.greedy());
  EXPECT_DOUBLE_EQ(r.sampling.temperature, 0.6);
  EXPECT_EQ(r.sampling.top_k, 40);
  EXPECT_EQ(r.stop.max_new_tokens, 70);  // max_length counts the prompt
  EXPECT_EQ(r.stop.context_limit, 512);
  EXPECT_EQ(r.stop.eos_ids, (std::vector<TokenId>{2}));
  GenerationOptions o;
  o.sampling.top_k = 5;
  o.max_new_tokens = 10;
  o.ignore_eos = true;
  r = resolve_request(o, package, 30);
  EXPECT_EQ(r.sampling.top_k, 5);
  EXPECT_EQ(r.stop.max_new_tokens, 10);
  EXPECT_TRUE(r.stop.eos_ids.empty());
}

TEST(RequestTest, OverridesGateTheRequest) {
  PackageGeneration package;
  package.overrides_declared = true;
  package.overrides["temperature"] = {0.0, 1.5};
  GenerationOptions o;
  o.sampling.temperature = 1.2f;
  EXPECT_NO_THROW(resolve_request(o, package, 5));
  o.sampling.temperature = 1.8f;
  try {
    resolve_request(o, package, 5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "temperature");
    EXPECT_NE(e.message().find("[0, 1.5]"), std::string::npos) << e.what();
  }
  o = {};
  o.sampling.top_p = 0.9f;  // not listed
  try {
    resolve_request(o, package, 5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("does not allow overriding 'top_p'"), std::string::npos) << e.what();
  }
}

TEST(RequestTest, OutOfRangeValuesFailLoudly) {
  GenerationOptions o;
  o.sampling.top_p = 0.0f;
  EXPECT_THROW(resolve_request(o, {}, 5), Error);
  o = {};
  o.max_new_tokens = -1;
  EXPECT_THROW(resolve_request(o, {}, 5), Error);
  o = {};
  o.max_new_tokens = 0;  // prefill only
  EXPECT_TRUE(resolve_request(o, {}, 5).prefill_only);
  o = {};
  o.prefill_chunk = -1;
  EXPECT_THROW(resolve_request(o, {}, 5), Error);
  o = {};
  o.sampling.repetition_penalty = 0.0f;
  EXPECT_THROW(resolve_request(o, {}, 5), Error);
}

}  // namespace
}  // namespace ogai::generate

namespace ogai::generate {
namespace {

// The error resolve_request raises for `o` against `package`.
Error resolve_error(const GenerationOptions& o, const PackageGeneration& package) {
  try {
    resolve_request(o, package, 3);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error";
  return Error(ErrorCode::kInternal, "", "");
}

TEST(RequestTest, ResponseFormatBecomesTheSamplerConstraint) {
  const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(std::string(OGAI_SHARED_DIR) + "/models/stories260k");
  PackageGeneration package;
  package.eos_ids = {2};
  package.grammar = std::make_shared<grammar::ModelGrammar>(tok);
  GenerationOptions o;
  EXPECT_EQ(resolve_request(o, package, 3).sampling.constraint, nullptr);
  o.response_format = ResponseFormat{ResponseFormat::Kind::kRegex, "ab", true};
  auto r = resolve_request(o, package, 3);
  ASSERT_NE(r.sampling.constraint, nullptr);
  EXPECT_EQ(resolve_request(o, package, 3).sampling.constraint, r.sampling.constraint);  // compiled once per model
  auto state = r.sampling.constraint->start();
  EXPECT_FALSE(state->complete());
  // Without EOS (ignore_eos), a stop token id ends the text; with neither, the request is refused.
  o.ignore_eos = true;
  EXPECT_EQ(resolve_error(o, package).where(), "response_format");
  o.stop_token_ids = {5};
  EXPECT_NE(resolve_request(o, package, 3).sampling.constraint, nullptr);
  // Compile errors surface here, located at the format.
  o.response_format->text = "(";
  EXPECT_EQ(resolve_error(o, package).where(), "response_format.regex");
  // No vocabulary: refused by name.
  o.response_format->text = "a";
  package.grammar = nullptr;
  EXPECT_EQ(resolve_error(o, package).code(), ErrorCode::kUnsupported);
}

}  // namespace
}  // namespace ogai::generate
