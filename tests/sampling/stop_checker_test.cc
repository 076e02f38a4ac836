#include "sampling/stop_checker.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace ogai::sampling {
namespace {

TEST(StopCheckerTest, ReportsEachReasonWithItsPrecedence) {
  StopChecker checker{{2, 7}, 5, 10};
  EXPECT_EQ(checker.check(3, 1, 4, false, false), std::nullopt);
  EXPECT_EQ(checker.check(7, 1, 4, false, false), FinishReason::kEos);
  EXPECT_EQ(checker.check(3, 1, 4, false, true), FinishReason::kStop);
  EXPECT_EQ(checker.check(3, 5, 8, false, false), FinishReason::kLength);   // max_new_tokens
  EXPECT_EQ(checker.check(3, 4, 10, false, false), FinishReason::kLength);  // context full
  EXPECT_EQ(checker.check(3, 4, 9, false, false), std::nullopt);
  EXPECT_EQ(checker.check(2, 5, 10, true, true), FinishReason::kCancelled);
  EXPECT_EQ(checker.check(2, 5, 10, false, true), FinishReason::kEos);
  EXPECT_EQ(checker.check(3, 5, 10, false, true), FinishReason::kStop);
}

TEST(StopCheckerTest, UnsetLimitsNeverEnd) {
  StopChecker checker;
  EXPECT_EQ(checker.check(0, 1000000, 2000000, false, false), std::nullopt);
  EXPECT_FALSE(checker.is_eos(0));
}

TEST(StopCheckerTest, NamesAreTheReportedStrings) {
  EXPECT_STREQ(finish_reason_name(FinishReason::kStop), "stop");
  EXPECT_STREQ(finish_reason_name(FinishReason::kLength), "length");
  EXPECT_STREQ(finish_reason_name(FinishReason::kEos), "eos");
  EXPECT_STREQ(finish_reason_name(FinishReason::kCancelled), "cancelled");
  EXPECT_STREQ(finish_reason_name(static_cast<FinishReason>(42)), "unknown");
}

TEST(StopCheckerTest, PromptThatFillsTheContextIsAClearError) {
  StopChecker checker{{}, 16, 512};
  EXPECT_NO_THROW(checker.check_prompt(511));
  try {
    checker.check_prompt(512);
    FAIL() << "accepted a prompt that fills the context";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(e.message().find("512 tokens"), std::string::npos) << e.message();
  }
  StopChecker zero{{}, 0, std::nullopt};
  EXPECT_THROW(zero.check_prompt(1), Error);
}

}  // namespace
}  // namespace ogai::sampling
