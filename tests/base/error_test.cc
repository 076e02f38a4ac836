#include <gtest/gtest.h>

#include <cmath>

#include "base/error.h"
#include "base/log.h"

namespace ogai {
namespace {

TEST(ErrorTest, WhatJoinsWhereAndMessage) {
  Error e(ErrorCode::kParse, "model.yaml", "expected a map");
  EXPECT_STREQ(e.what(), "model.yaml: expected a map");
  EXPECT_EQ(e.code(), ErrorCode::kParse);
  EXPECT_EQ(Error(ErrorCode::kInternal, "", "boom").what(), std::string("boom"));
}

TEST(ErrorTest, FailFormats) {
  try {
    fail(ErrorCode::kInvalidArgument, "--top-p", "{} is outside (0, 1]", 1.5);
    FAIL() << "fail() returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "--top-p");
    EXPECT_EQ(e.message(), "1.5 is outside (0, 1]");
    EXPECT_STREQ(error_code_name(e.code()), "invalid_argument");
  }
}

TEST(LogTest, ParsesLevelsAndRejectsOthers) {
  EXPECT_EQ(parse_log_level("debug"), LogLevel::kDebug);
  EXPECT_EQ(parse_log_level("error"), LogLevel::kError);
  EXPECT_THROW(parse_log_level("loud"), Error);
  LogLevel before = log_level();
  set_log_level(LogLevel::kTrace);
  EXPECT_EQ(log_level(), LogLevel::kTrace);
  set_log_level(before);
}

TEST(LogTest, ATagFollowsTheLevel) {
  testing::internal::CaptureStderr();
  set_log_tag("r2");
  log_message(LogLevel::kWarn, "hello");
  set_log_tag("");
  log_message(LogLevel::kWarn, "bye");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "ogai [warn] [r2] hello\nogai [warn] bye\n");
}

}  // namespace
}  // namespace ogai

#include "base/half.h"

namespace ogai {
namespace {

TEST(HalfTest, ConvertsNormalsSubnormalsAndSpecials) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), 5.9604644775390625e-8f);  // smallest subnormal
  EXPECT_EQ(half_to_float(0x0000), 0.0f);
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(bfloat16_to_float(0x3f80), 1.0f);
}

TEST(HalfTest, FloatToHalfRoundTripsEveryHalf) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = half_to_float(bits);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(half_to_float(float_to_half(f))));
      continue;
    }
    ASSERT_EQ(float_to_half(f), bits) << std::hex << h;
  }
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);                  // overflow -> inf
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3c00);    // halfway rounds to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3.0f / 2048), 0x3c02);    // halfway rounds to even (up)
  EXPECT_EQ(float_to_bfloat16(1.0f), 0x3f80);
  float in[3] = {1.5f, -2.0f, 0.25f};
  std::uint16_t half[3];
  float back[3];
  convert_floats(in, DataType::kFloat32, half, DataType::kFloat16, 3);
  convert_floats(half, DataType::kFloat16, back, DataType::kFloat32, 3);
  EXPECT_EQ(back[1], -2.0f);
  EXPECT_EQ(back[2], 0.25f);
  EXPECT_THROW(convert_floats(in, DataType::kInt64, back, DataType::kFloat32, 1), Error);
}

}  // namespace
}  // namespace ogai
