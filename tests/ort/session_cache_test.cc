// ONNX Runtime's optimized-model cache (ort/session_cache.h) on stories260k: built once, used the
// next time with the same logits as a session without it, rebuilt when its key, its files or their
// permissions are not what ogai wrote, and never used for someone else's entry.
#include "ort/session_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>

#include "base/file.h"

namespace ogai::ort {
namespace {

namespace fs = std::filesystem;
const fs::path kStories = fs::path(OGAI_SHARED_DIR) / "models/stories260k/model.onnx";

std::vector<float> logits_of(const Session& s) {
  const std::vector<std::int64_t> ids = {1, 403, 407, 261, 378}, mask(5, 1), positions = {0, 1, 2, 3, 4};
  std::vector<std::string> names = {"input_ids", "attention_mask", "position_ids"};
  std::vector<Tensor> feeds;
  feeds.push_back(Tensor::copy_of(std::span<const std::int64_t>(ids), {1, 5}));
  feeds.push_back(Tensor::copy_of(std::span<const std::int64_t>(mask), {1, 5}));
  feeds.push_back(Tensor::copy_of(std::span<const std::int64_t>(positions), {1, 5}));
  for (int layer = 0; layer < 5; ++layer)
    for (const char* kind : {"key", "value"}) {
      names.push_back("past_key_values." + std::to_string(layer) + "." + kind);
      feeds.push_back(Tensor::zeros(DataType::kFloat32, {1, 4, 0, 8}));
    }
  std::vector<const Tensor*> inputs;
  for (const auto& f : feeds) inputs.push_back(&f);
  const std::vector<std::string> outputs = {"logits"};
  auto out = s.run(names, inputs, outputs);
  auto span = out[0].span<float>();
  return {span.begin(), span.end()};
}

class SessionCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(OGAI_BINARY_DIR) / "session_cache_test" / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    bytes_ = read_file(kStories);
  }
  Session open(CacheUse& use) { return open_cached(dir_, bytes_, kStories.parent_path(), {}, "stories", &use); }
  fs::path entry() const {
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string()[0] != '.') return e.path();
    return {};
  }
  fs::path dir_;
  std::string bytes_;
};

TEST_F(SessionCacheTest, BuiltOnceThenUsedWithTheSameLogits) {
  const std::vector<float> plain = logits_of(Session::open(kStories));
  CacheUse use = CacheUse::kBypassed;
  const std::vector<float> built = logits_of(open(use));
  EXPECT_EQ(use, CacheUse::kBuilt);
  ASSERT_FALSE(entry().empty());
  for (const char* name : {"model.onnx", "model.onnx.data", "key.txt"}) EXPECT_TRUE(fs::is_regular_file(entry() / name));
  const std::vector<float> cached = logits_of(open(use));
  EXPECT_EQ(use, CacheUse::kHit);
  ASSERT_EQ(plain.size(), cached.size());
  EXPECT_EQ(built, plain);
  for (std::size_t i = 0; i < plain.size(); ++i) ASSERT_NEAR(cached[i], plain[i], 1e-5f) << i;
}

TEST_F(SessionCacheTest, TamperedEntriesAreRebuilt) {
  CacheUse use;
  open(use);
  ASSERT_EQ(use, CacheUse::kBuilt);
  write_file(entry() / "key.txt", "something else");  // a stale or forged key
  open(use);
  EXPECT_EQ(use, CacheUse::kBuilt);
  open(use);
  EXPECT_EQ(use, CacheUse::kHit);
  chmod(entry().c_str(), 0777);  // writable by others: not trusted
  open(use);
  EXPECT_EQ(use, CacheUse::kBuilt);
  const fs::path model = entry() / "model.onnx";
  fs::rename(model, entry() / "real.onnx");
  fs::create_symlink(entry() / "real.onnx", model);  // a link where a file was written
  open(use);
  EXPECT_EQ(use, CacheUse::kBuilt);
  open(use);
  EXPECT_EQ(use, CacheUse::kHit);
  fs::resize_file(entry() / "key.txt", (1 << 20) + 1);  // over the key's budget: not read
  open(use);
  EXPECT_EQ(use, CacheUse::kBuilt);
}

TEST_F(SessionCacheTest, ADifferentModelOrOptionHasAnotherKey) {
  SessionOptions options;
  const std::string key = cache_key(bytes_, kStories.parent_path(), options, "stories");
  std::string other = bytes_;
  other.back() ^= 1;
  EXPECT_NE(cache_key(other, kStories.parent_path(), options, "stories"), key);
  options.graph_optimization_level = 1;
  EXPECT_NE(cache_key(bytes_, kStories.parent_path(), options, "stories"), key);
  EXPECT_NE(key.find("onnxruntime " + runtime_version()), std::string::npos);
}

TEST_F(SessionCacheTest, AnUntrustedCacheDirectoryIsNotUsed) {
  fs::create_directories(dir_);
  chmod(dir_.c_str(), 0777);
  CacheUse use;
  const std::vector<float> logits = logits_of(open(use));
  EXPECT_EQ(use, CacheUse::kBypassed);
  EXPECT_EQ(logits, logits_of(Session::open(kStories)));
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace ogai::ort
