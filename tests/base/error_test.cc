#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ogai
