// base/staged_output.h and base/signal_cleanup.h: outputs replace only what ogai wrote, land in
// one rename, and leave no temporary; stale temporaries of dead runs are removed only when ogai's.
#include "base/staged_output.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "base/file.h"
#include "base/signal_cleanup.h"
#include "ogai/error.h"

namespace ogai {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
  fs::path d = fs::path(testing::TempDir()) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ogai::Error";
  return "";
}

int entries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

pid_t dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(StagedDirectory, WritesReplacesItsOwnAndLeavesNoTemporary) {
  const fs::path parent = fresh_dir("staged_own");
  const fs::path dst = parent / "pkg";
  {
    StagedDirectory staged(dst, false, "");
    write_file(staged.path() / "a.txt", "one");
    staged.commit();
  }
  EXPECT_EQ(read_file(dst / "a.txt"), "one");
  EXPECT_TRUE(fs::exists(dst / kPackageMarker));
  EXPECT_NE(error_of([&] { StagedDirectory s(dst, false, " (pass --force)"); }).find("exists (pass --force): a package ogai wrote"),
            std::string::npos);
  {
    StagedDirectory staged(dst, true, "");
    write_file(staged.path() / "b.txt", "two");
    staged.commit();
  }
  EXPECT_FALSE(fs::exists(dst / "a.txt"));
  EXPECT_EQ(read_file(dst / "b.txt"), "two");
  { StagedDirectory abandoned(dst, true, ""); }  // never committed: removed, dst untouched
  EXPECT_EQ(read_file(dst / "b.txt"), "two");
  EXPECT_EQ(entries(parent), 1);
}

TEST(StagedDirectory, RefusesWhatOgaiDidNotWrite) {
  const fs::path parent = fresh_dir("staged_foreign");
  fs::create_directories(parent / "dst" / "photos");
  write_file(parent / "dst" / "thesis.tex", "x");
  EXPECT_NE(error_of([&] { StagedDirectory s(parent / "dst", true, ""); })
                .find("is a directory holding 2 entries that ogai did not write (photos, thesis.tex)"),
            std::string::npos);
  write_file(parent / "file", "x");
  EXPECT_NE(error_of([&] { StagedDirectory s(parent / "file", true, ""); }).find("is a regular file"), std::string::npos);
  ASSERT_EQ(::mkfifo((parent / "fifo").c_str(), 0600), 0);
  EXPECT_NE(error_of([&] { StagedDirectory s(parent / "fifo", true, ""); }).find("is a FIFO"), std::string::npos);
  fs::create_directory_symlink(parent / "dst", parent / "link");
  EXPECT_NE(error_of([&] { StagedDirectory s(parent / "link", true, ""); }).find("is a symbolic link"), std::string::npos);
  EXPECT_EQ(entries(parent / "dst"), 2);
  fs::create_directory(parent / "empty");
  StagedDirectory ok(parent / "empty", false, "");  // an empty directory needs no force
  ok.commit();
  EXPECT_TRUE(fs::exists(parent / "empty" / kPackageMarker));
}

TEST(StagedDirectory, RemovesOnlyOgaisStaleTemporaries) {
  const fs::path parent = fresh_dir("staged_stale");
  const std::string pid = std::to_string(dead_pid());
  const fs::path ours = parent / (".pkg.ogai-tmp-" + pid), empty = parent / (".pkg.ogai-tmp-1" + pid),
                 foreign = parent / (".pkg.ogai-tmp-2" + pid), other = parent / (".other.ogai-tmp-" + pid);
  for (const fs::path& d : {ours, empty, foreign, other}) fs::create_directories(d);
  write_file(ours / kPackageMarker, "m");
  write_file(ours / "half.onnx", "h");
  write_file(other / kPackageMarker, "m");
  write_file(foreign / "mine.txt", "not ogai's");
  StagedDirectory staged(parent / "pkg", false, "");
  EXPECT_FALSE(fs::exists(ours));
  EXPECT_TRUE(fs::exists(foreign / "mine.txt"));
  EXPECT_TRUE(fs::exists(other));  // another destination's
  EXPECT_TRUE(fs::exists(staged.path() / kPackageMarker));
}

TEST(WriteFileReplacing, ReplacesOnlyItsOwnFileAndWorksWithARelativePath) {
  const fs::path parent = fresh_dir("staged_file");
  write_file(parent / "foreign.yaml", "model: mine\n");
  EXPECT_NE(error_of([&] { write_file_replacing(parent / "foreign.yaml", "# Imported x", "# Imported"); })
                .find("exists and ogai did not write it"),
            std::string::npos);
  EXPECT_EQ(read_file(parent / "foreign.yaml"), "model: mine\n");
  const fs::path cwd = fs::current_path();
  fs::current_path(parent);
  write_file_replacing("own.yaml", "# Imported one", "# Imported");
  write_file_replacing("own.yaml", "# Imported two", "# Imported");
  fs::current_path(cwd);
  EXPECT_EQ(read_file(parent / "own.yaml"), "# Imported two");
  EXPECT_NE(error_of([&] { write_file_replacing(parent, "# Imported", "# Imported"); }).find("is a directory"),
            std::string::npos);
  EXPECT_EQ(entries(parent), 2);
}

TEST(SignalCleanup, RemovesANestedTree) {
  const fs::path root = fresh_dir("signal_tree");
  fs::create_directories(root / "a" / "b" / "c");
  for (int i = 0; i < 300; ++i) write_file(root / "a" / ("f" + std::to_string(i)), "x");
  write_file(root / "a" / "b" / "c" / "deep", "x");
  fs::create_symlink("/etc", root / "a" / "link");  // removed, not followed
  remove_tree_signal_safe(root.c_str());
  EXPECT_FALSE(fs::exists(root));
  EXPECT_TRUE(fs::exists("/etc/passwd"));
}

}  // namespace
}  // namespace ogai
