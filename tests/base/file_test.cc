#include <gtest/gtest.h>

#include <filesystem>

#include "base/error.h"
#include "base/file.h"

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

}  // namespace
}  // namespace ogai
