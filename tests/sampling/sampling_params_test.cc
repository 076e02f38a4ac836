#include "sampling/sampling_params.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "base/error.h"

namespace ogai::sampling {
namespace {

// Expects validate() to throw naming `field`, quoting `value_text` and saying the range.
void expect_invalid(const std::function<void(SamplingParams&)>& change, const std::string& field,
                    const std::string& value_text) {
  SamplingParams params;
  change(params);
  try {
    params.validate("request");
    FAIL() << "accepted an invalid " << field;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_EQ(e.where(), "request." + field);
    EXPECT_NE(e.message().find(value_text), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("range"), std::string::npos) << e.message();
  }
}

TEST(SamplingParamsTest, DefaultsAreValidAndDisableEverything) {
  SamplingParams params;
  EXPECT_NO_THROW(params.validate());
  EXPECT_TRUE(params.do_sample);
  EXPECT_EQ(params.temperature, 1.0);
  EXPECT_EQ(params.top_k, 0);
  EXPECT_EQ(params.top_p, 1.0);
  EXPECT_EQ(params.min_p, 0.0);
  EXPECT_EQ(params.typical_p, 1.0);
  EXPECT_EQ(params.repetition_penalty, 1.0);
  EXPECT_EQ(params.min_tokens_to_keep, 1);
  EXPECT_FALSE(params.seed.has_value());
  EXPECT_FALSE(params.greedy());
}

TEST(SamplingParamsTest, GreedyWhenNotSamplingOrTemperatureZero) {
  SamplingParams params;
  params.temperature = 0.0;
  EXPECT_TRUE(params.greedy());
  EXPECT_NO_THROW(params.validate());
  params.temperature = 0.7;
  params.do_sample = false;
  EXPECT_TRUE(params.greedy());
}

TEST(SamplingParamsTest, RejectsOutOfRangeValuesNamingFieldAndValue) {
  expect_invalid([](auto& p) { p.temperature = -0.5; }, "temperature", "-0.5");
  expect_invalid([](auto& p) { p.temperature = INFINITY; }, "temperature", "inf");
  expect_invalid([](auto& p) { p.top_k = -1; }, "top_k", "-1");
  expect_invalid([](auto& p) { p.top_p = 0.0; }, "top_p", "0");
  expect_invalid([](auto& p) { p.top_p = 1.5; }, "top_p", "1.5");
  expect_invalid([](auto& p) { p.top_p = NAN; }, "top_p", "nan");
  expect_invalid([](auto& p) { p.min_p = -0.1; }, "min_p", "-0.1");
  expect_invalid([](auto& p) { p.min_p = 1.01; }, "min_p", "1.01");
  expect_invalid([](auto& p) { p.typical_p = 0.0; }, "typical_p", "0");
  expect_invalid([](auto& p) { p.typical_p = 2.0; }, "typical_p", "2");
  expect_invalid([](auto& p) { p.repetition_penalty = 0.0; }, "repetition_penalty", "0");
  expect_invalid([](auto& p) { p.repetition_penalty = -1.2; }, "repetition_penalty", "-1.2");
  expect_invalid([](auto& p) { p.frequency_penalty = 2.5; }, "frequency_penalty", "2.5");
  expect_invalid([](auto& p) { p.presence_penalty = -3.0; }, "presence_penalty", "-3");
  expect_invalid([](auto& p) { p.logit_bias[7] = 101.0; }, "logit_bias[7]", "101");
  expect_invalid([](auto& p) { p.logit_bias[-2] = 1.0; }, "logit_bias[-2]", "-2");
  expect_invalid([](auto& p) { p.min_tokens_to_keep = 0; }, "min_tokens_to_keep", "0");
}

TEST(SamplingParamsTest, AcceptsTheRangeEnds) {
  SamplingParams params;
  params.top_p = 1.0;
  params.min_p = 1.0;
  params.typical_p = 1.0;
  params.frequency_penalty = -2.0;
  params.presence_penalty = 2.0;
  params.logit_bias = {{0, -100.0}, {5, 100.0}};
  params.repetition_penalty = 0.01;
  EXPECT_NO_THROW(params.validate());
}

}  // namespace
}  // namespace ogai::sampling
