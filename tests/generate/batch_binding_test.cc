// The IoBinding decode step (BatchStep::Feed::kBound, what the engine runs) against the plain
// step without binding (Feed::kPlain) on the same rows: logits and every state tensor must be
// byte-identical after each step, with rows joining and leaving between steps, for every fixture
// family, append storage and shared buffers (where the bound present is the past's buffer,
// written in place).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "generate/batch_step.h"
#include "generate/package_config.h"
#include "metadata/package.h"

namespace ogai::generate {
namespace {

namespace fs = std::filesystem;

fs::path package_path(const std::string& name) {
  if (name == "stories260k") return fs::path(OGAI_BINARY_DIR) / "packages" / name;
  return fs::path(OGAI_SOURCE_DIR) / "tests/data/packages" / name;
}

bool same_bytes(const ort::Tensor& a, const ort::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.byte_size()) == 0;
}

// A prefilled batch-1 cache of a prompt of `length` tokens (ids derived from `tag`).
kv::KvCache prefill(const Decoder& decoder, std::int64_t length, int tag) {
  std::vector<TokenId> ids(static_cast<std::size_t>(length));
  for (std::int64_t i = 0; i < length; ++i) ids[static_cast<std::size_t>(i)] = 1 + (tag * 7 + i * 3) % 60;
  kv::KvCache cache(decoder.spec().cache, 1);
  AttentionState attention(1);
  decoder.step(ids, length, {}, attention, cache);
  return cache;
}

TokenId argmax(StepOutput& out, std::int64_t row) {
  std::vector<float> scratch;
  auto logits = out.row_logits(row, 0, scratch);
  std::size_t best = 0;
  for (std::size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = i;
  return static_cast<TokenId>(best);
}

// Two batches holding the same rows, one stepped with binding, one without.
class Twins {
 public:
  explicit Twins(const Decoder& d)
      : bound_(d.spec().cache, d.state_memory()),
        plain_(d.spec().cache),
        bound_step_(d, BatchStep::Feed::kBound),
        plain_step_(d, BatchStep::Feed::kPlain),
        decoder_(d) {}

  void join(std::int64_t length, int tag) {
    kv::KvCache solo = prefill(decoder_, length, tag);
    plain_.add_row(solo.copy());
    bound_.add_row(std::move(solo));
    tokens_.push_back(tag);
  }

  void leave(std::int64_t row) {
    kv::KvCache a = bound_.take_row(row);
    kv::KvCache b = plain_.take_row(row);
    for (std::size_t i = 0; i < a.pasts().size(); ++i)
      EXPECT_TRUE(same_bytes(a.pasts()[i], b.pasts()[i])) << what_ << " row " << row << " leaving, pair " << i;
    tokens_[static_cast<std::size_t>(row)] = tokens_.back();
    tokens_.pop_back();
  }

  // One step of both; records a failure when they differ.
  void step(const std::string& what) {
    what_ = what;
    StepOutput plain = plain_step_.run(tokens_, plain_);
    StepOutput bound = bound_step_.run(tokens_, bound_);
    ASSERT_TRUE(same_bytes(bound.logits, plain.logits)) << what << ": logits differ";
    auto a = bound_.pasts();
    auto b = plain_.pasts();
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(same_bytes(*a[i], *b[i])) << what << ": pair " << i;
    for (std::int64_t r = 0; r < plain_.rows(); ++r) tokens_[static_cast<std::size_t>(r)] = argmax(plain, r);
  }

  kv::BatchCache& bound() { return bound_; }
  BatchStep& bound_step() { return bound_step_; }
  std::vector<TokenId>& tokens() { return tokens_; }

 private:
  kv::BatchCache bound_, plain_;
  BatchStep bound_step_, plain_step_;
  const Decoder& decoder_;
  std::vector<TokenId> tokens_;
  std::string what_;
};

void run_schedule(const Decoder& decoder, const std::string& name) {
  Twins twins(decoder);
  twins.join(5, 1);
  twins.join(9, 2);
  for (int s = 0; s < 3; ++s) twins.step(name + " two rows, step " + std::to_string(s));
  twins.join(3, 3);   // a shorter row joins
  twins.join(12, 4);  // a longer one (shared buffers grow)
  for (int s = 0; s < 3; ++s) twins.step(name + " four rows, step " + std::to_string(s));
  twins.leave(0);  // the last row moves into row 0
  twins.leave(2);
  for (int s = 0; s < 2; ++s) twins.step(name + " after leaving, step " + std::to_string(s));
  twins.leave(1);
  twins.step(name + " one row");
  twins.join(4, 5);
  twins.step(name + " rejoined");
}

class BatchBindingTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BatchBindingTest, BoundStepEqualsPlainStep) {
  auto config = make_package_config(metadata::load_package(package_path(GetParam())));
  Decoder decoder(config.decoder, {});
  EXPECT_TRUE(decoder.state_memory().location().host());
  run_schedule(decoder, GetParam());
}

// The GroupQueryAttention families (what shared-buffer storage is for).
TEST(BatchBinding, SharedBuffersBoundStepEqualsPlainStep) {
  for (const char* name : {"tiny-e2b", "tiny-e2b-fp16", "tiny-moe"}) {
    auto config = make_package_config(metadata::load_package(package_path(name)));
    config.decoder.cache.mode = kv::StorageMode::kSharedBuffer;
    Decoder decoder(config.decoder, {});
    run_schedule(decoder, std::string(name) + " shared");
  }
}

// The bound present of a shared buffer is the past's own memory: a step that does not grow the
// buffer leaves every pair's address where it was and advances every row by one position.
TEST(BatchBinding, SharedBufferPresentIsWrittenInPlace) {
  auto config = make_package_config(metadata::load_package(package_path("tiny-e2b")));
  config.decoder.cache.mode = kv::StorageMode::kSharedBuffer;
  Decoder decoder(config.decoder, {});
  Twins twins(decoder);
  twins.join(6, 1);
  twins.join(3, 2);
  twins.step("first");  // may grow the buffers
  std::vector<const void*> before;
  for (const auto* t : twins.bound().pasts()) before.push_back(t->raw_data());
  ASSERT_GT(twins.bound().spec().pairs.size(), 0u);
  twins.step("second");
  ASSERT_EQ(twins.bound().pasts().size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i)
    if (twins.bound().spec().pairs[i].update == kv::Update::kAppend) {
      EXPECT_EQ(twins.bound().pasts()[i]->raw_data(), before[i]) << "pair " << i << " was reallocated";
    }
  EXPECT_EQ(twins.bound().length(0), 8);
  EXPECT_EQ(twins.bound().length(1), 5);
}

INSTANTIATE_TEST_SUITE_P(Packages, BatchBindingTest,
                         ::testing::Values("stories260k", "tiny-e2b", "tiny-e2b-fp16", "tiny-moe", "tiny-static",
                                           "tiny-recurrent"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace ogai::generate
