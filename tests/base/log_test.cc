// base/log.h: a log line is bounded (issue 37: a body of 40,000 unknown fields wrote one 5.4 MB
// warning line), cut at a character boundary with a marker saying how much was cut.
#include "base/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "base/file.h"
#include "base/log_bound.h"

namespace ogai {
namespace {

TEST(LogBound, ShortTextIsUnchanged) {
  EXPECT_EQ(bounded_log_text("hello", 5), "hello");
  EXPECT_EQ(bounded_log_text("", 0), "");
}

TEST(LogBound, LongTextIsCutWithAMarker) {
  EXPECT_EQ(bounded_log_text("abcdefghij", 4), "abcd... [6 bytes cut]");
  // "é" is two bytes: a cut inside it keeps the character whole or drops it.
  EXPECT_EQ(bounded_log_text("a\xC3\xA9z", 2), "a... [3 bytes cut]");
}

// What log_message writes to stderr for `message`.
std::string logged(const std::string& message) {
  const std::filesystem::path file = std::filesystem::path(testing::TempDir()) / "ogai_log_test.txt";
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* f = std::fopen(file.c_str(), "w");
  ::dup2(::fileno(f), STDERR_FILENO);
  log_message(LogLevel::kWarn, message);
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(f);
  return read_file(file);
}

TEST(LogBound, AHugeMessageWritesABoundedLine) {
  const std::string line = logged("unknown fields: " + std::string(5'400'000, 'x'));
  EXPECT_LT(line.size(), kMaxLogMessageBytes + 200);
  EXPECT_NE(line.find("... [" + std::to_string(5'400'016 - kMaxLogMessageBytes) + " bytes cut]\n"), std::string::npos);
  EXPECT_EQ(logged("short"), "ogai [warn] short\n");
}

TEST(LogBound, JsonLinesStayValidWhenCut) {
  set_log_format(LogFormat::kJson);
  const std::string line = logged(std::string(100'000, '"'));
  set_log_format(LogFormat::kText);
  EXPECT_LT(line.size(), 2 * kMaxLogMessageBytes + 200);  // every quote escaped
  EXPECT_EQ(line.substr(line.size() - 3), "\"}\n");
  EXPECT_NE(line.find("bytes cut]"), std::string::npos);
}

}  // namespace
}  // namespace ogai
