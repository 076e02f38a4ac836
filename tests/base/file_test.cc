#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/error.h"
#include "base/file.h"
#include "base/input_file.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

fs::path temp_path(const char* name) { return fs::path(testing::TempDir()) / name; }

TEST(FileTest, WriteThenReadAndMap) {
  fs::path p = temp_path("ogai_file_test.bin");
  std::string bytes("a\0b\xff", 4);
  write_file(p, bytes);
  EXPECT_EQ(read_file(p), bytes);
  MappedFile map(p);
  EXPECT_EQ(map.view(), bytes);
  MappedFile moved(std::move(map));
  EXPECT_EQ(moved.size(), 4u);
  EXPECT_EQ(map.size(), 0u);
}

TEST(FileTest, EmptyFileMapsToEmptyView) {
  fs::path p = temp_path("ogai_empty.bin");
  write_file(p, "");
  MappedFile map(p);
  EXPECT_EQ(map.size(), 0u);
}

TEST(FileTest, MissingFileNamesPath) {
  try {
    read_file("/nonexistent/ogai.txt");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/ogai.txt"), std::string::npos);
  }
  EXPECT_THROW(MappedFile("/nonexistent/ogai.txt"), Error);
}

TEST(FileTest, DirectoryIsRejected) {
  EXPECT_THROW(read_file(testing::TempDir()), Error);
  EXPECT_THROW(MappedFile(fs::path(testing::TempDir())), Error);
}

// The message of what `read` throws (fails the test when it does not throw).
template <typename F>
std::string error_of(F read) {
  try {
    read();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ogai::Error";
  return "";
}

TEST(FileTest, FifoIsRefusedWithoutBlocking) {
  fs::path p = temp_path("ogai_fifo");
  fs::remove(p);
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  // Without the type check these block forever: no writer ever opens the FIFO.
  EXPECT_NE(error_of([&] { read_file(p); }).find("is a FIFO"), std::string::npos);
  EXPECT_NE(error_of([&] { read_file_head(p, 16); }).find("is a FIFO"), std::string::npos);
  EXPECT_NE(error_of([&] { MappedFile m(p); }).find("is a FIFO"), std::string::npos);
  fs::remove(p);
}

TEST(FileTest, DevicesAreRefusedByType) {
  // /dev/zero never ends: reading it would grow without bound.
  const std::string message = error_of([] { read_file("/dev/zero"); });
  EXPECT_NE(message.find("/dev/zero"), std::string::npos);
  EXPECT_NE(message.find("is a character device, expected a regular file"), std::string::npos);
}

TEST(FileTest, FileOverTheBudgetIsRefused) {
  fs::path p = temp_path("ogai_budget.bin");
  write_file(p, std::string(100, 'x'));
  EXPECT_EQ(read_file(p, 100).size(), 100u);
  EXPECT_NE(error_of([&] { read_file(p, 99); }).find("more than the 99 bytes"), std::string::npos);
  EXPECT_EQ(read_file_head(p, 10), std::string(10, 'x'));
}

TEST(FileTest, EndlessStdinIsReadUnderItsBudget) {
  const int saved = ::dup(STDIN_FILENO);
  const int zero = ::open("/dev/zero", O_RDONLY);
  ASSERT_GE(zero, 0);
  ::dup2(zero, STDIN_FILENO);
  const std::string message = error_of([] { read_stdin("standard input", 1 << 20); });
  ::dup2(saved, STDIN_FILENO);
  ::close(zero);
  ::close(saved);
  EXPECT_NE(message.find("standard input"), std::string::npos);
  EXPECT_NE(message.find("more than the 1048576 bytes"), std::string::npos);
}

TEST(FileTest, NameTooLongSaysSo) {
  const std::string message = error_of([] { read_file(fs::path(testing::TempDir()) / std::string(300, 'n')); });
  EXPECT_NE(message.find("File name too long"), std::string::npos);
}

}  // namespace
}  // namespace ogai
