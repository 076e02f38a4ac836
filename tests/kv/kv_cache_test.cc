#include "kv/kv_cache.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "kv/sequence_copy.h"

namespace ogai::kv {
namespace {

CacheSpec two_group_spec(StorageMode mode) {
  CacheSpec spec;
  spec.mode = mode;
  spec.max_length = 64;
  spec.pairs.push_back({"sliding_attention", "past.0.key", "present.0.key", DataType::kFloat32, 2, 4});
  spec.pairs.push_back({"full_attention", "past.1.key", "present.1.key", DataType::kFloat32, 1, 8});
  return spec;
}

// A present of `length` positions whose value at (b, h, s, d) encodes s.
ort::Tensor present_of(const PairSpec& p, std::int64_t batch, std::int64_t length) {
  ort::Tensor t = ort::Tensor::allocate(p.dtype, {batch, p.kv_heads, length, p.head_dim});
  auto v = t.span<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i / p.head_dim) % length);
  return t;
}

TEST(KvCacheTest, StartsEmptyWithGraphGeometry) {
  CacheSpec spec = two_group_spec(StorageMode::kAppend);
  KvCache cache(spec, 3);
  ASSERT_EQ(cache.pasts().size(), 2u);
  EXPECT_EQ(cache.pasts()[0].shape(), (ort::Shape{3, 2, 0, 4}));
  EXPECT_EQ(cache.pasts()[1].shape(), (ort::Shape{3, 1, 0, 8}));
  EXPECT_EQ(cache.length(), 0);
}

TEST(KvCacheTest, AppendModeTakesPresentsWithoutCopy) {
  CacheSpec spec = two_group_spec(StorageMode::kAppend);
  KvCache cache(spec, 1);
  std::vector<ort::Tensor> slots(2);
  cache.bind_presents(slots);
  EXPECT_TRUE(slots[0].empty());
  slots[0] = present_of(spec.pairs[0], 1, 5);
  slots[1] = present_of(spec.pairs[1], 1, 5);
  const void* data = slots[0].raw_data();
  cache.commit(slots, 5);
  EXPECT_EQ(cache.length(), 5);
  EXPECT_EQ(cache.pasts()[0].raw_data(), data);
}

TEST(KvCacheTest, WrongPresentShapeNamesThePort) {
  CacheSpec spec = two_group_spec(StorageMode::kAppend);
  KvCache cache(spec, 1);
  std::vector<ort::Tensor> slots(2);
  slots[0] = present_of(spec.pairs[0], 1, 4);
  slots[1] = present_of(spec.pairs[1], 1, 5);
  try {
    cache.commit(slots, 5);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("present.0.key"), std::string::npos);
  }
}

TEST(KvCacheTest, RewindKeepsPrefixAndCopyIsDeep) {
  CacheSpec spec = two_group_spec(StorageMode::kAppend);
  KvCache cache(spec, 2);
  std::vector<ort::Tensor> slots(2);
  slots[0] = present_of(spec.pairs[0], 2, 6);
  slots[1] = present_of(spec.pairs[1], 2, 6);
  cache.commit(slots, 6);
  KvCache snapshot = cache.copy();
  cache.rewind(3);
  EXPECT_EQ(cache.pasts()[0].shape(), (ort::Shape{2, 2, 3, 4}));
  auto v = cache.pasts()[0].span<float>();
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], static_cast<float>((i / 4) % 3));
  EXPECT_EQ(snapshot.length(), 6);
  EXPECT_EQ(snapshot.pasts()[1].shape(), (ort::Shape{2, 1, 6, 8}));
  EXPECT_THROW(cache.rewind(4), Error);
}

TEST(KvCacheTest, SharedBufferGrowsGeometricallyAndKeepsPrefix) {
  CacheSpec spec = two_group_spec(StorageMode::kSharedBuffer);
  KvCache cache(spec, 1);
  cache.reserve(5);
  EXPECT_EQ(cache.capacity(), 5);
  std::vector<ort::Tensor> slots(2);
  cache.bind_presents(slots);
  ASSERT_FALSE(slots[0].empty());
  EXPECT_EQ(slots[0].raw_data(), cache.pasts()[0].raw_data());  // present aliases past
  slots[0].span<float>()[0] = 7.f;                                // the graph writes in place
  cache.commit(slots, 5);
  cache.reserve(6);
  EXPECT_EQ(cache.capacity(), 10);
  EXPECT_EQ(cache.pasts()[0].span<float>()[0], 7.f);
  cache.rewind(2);
  EXPECT_EQ(cache.capacity(), 10);  // rewinding a shared buffer is free
  EXPECT_EQ(cache.length(), 2);
  cache.reserve(40);
  EXPECT_EQ(cache.capacity(), 40);
  cache.reserve(41);
  EXPECT_EQ(cache.capacity(), 64);  // capped at the context limit
  EXPECT_THROW(cache.reserve(65), Error);
}

TEST(KvCacheTest, BorrowGivesExactlyTheHeldPositions) {
  CacheSpec spec = two_group_spec(StorageMode::kSharedBuffer);
  KvCache cache(spec, 1);
  cache.reserve(8);
  std::vector<ort::Tensor> slots(2);
  cache.bind_presents(slots);
  auto v0 = slots[0].span<float>();
  for (std::size_t i = 0; i < v0.size(); ++i) v0[i] = static_cast<float>(i);
  auto v1 = slots[1].span<float>();
  for (std::size_t i = 0; i < v1.size(); ++i) v1[i] = static_cast<float>(i);
  cache.commit(slots, 3);
  ort::Tensor two_heads = cache.borrow(0);  // [1, 2, 3, 4] out of capacity 8: copied
  EXPECT_EQ(two_heads.shape(), (ort::Shape{1, 2, 3, 4}));
  EXPECT_NE(two_heads.raw_data(), cache.pasts()[0].raw_data());
  EXPECT_EQ(two_heads.span<float>()[12], 32.0f);  // head 1 starts at position 0 of its row
  ort::Tensor one_head = cache.borrow(1);  // [1, 1, 3, 8]: a view of the buffer's prefix
  EXPECT_EQ(one_head.shape(), (ort::Shape{1, 1, 3, 8}));
  EXPECT_EQ(one_head.raw_data(), cache.pasts()[1].raw_data());
}

TEST(KvCacheTest, IndexedScatterBufferHasFixedCapacityAndFreeRewind) {
  CacheSpec spec;
  PairSpec pair{"static_cache", "past.key", "present.key", DataType::kFloat32, 1, 4};
  pair.update = Update::kIndexedScatter;
  pair.capacity = 16;
  spec.pairs.push_back(pair);
  KvCache cache(spec, 1);
  EXPECT_EQ(cache.pasts()[0].shape(), (ort::Shape{1, 1, 16, 4}));
  std::vector<ort::Tensor> slots(1);
  cache.bind_presents(slots);
  EXPECT_TRUE(slots[0].empty());  // the graph returns the updated buffer
  slots[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 1, 16, 4});
  cache.reserve(5);
  cache.commit(slots, 5);
  EXPECT_EQ(cache.length(), 5);
  cache.rewind(2);
  EXPECT_EQ(cache.pasts()[0].shape(), (ort::Shape{1, 1, 16, 4}));
  EXPECT_EQ(cache.borrow(0).shape(), (ort::Shape{1, 1, 2, 4}));
  try {
    cache.reserve(17);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("capacity of 16"), std::string::npos) << e.what();
  }
  slots[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 1, 17, 4});
  EXPECT_THROW(cache.commit(slots, 1), Error);  // a graph that grew the buffer breaks the contract
}

TEST(KvCacheTest, ReplaceStateIsReplacedAndOnlyResets) {
  CacheSpec spec;
  PairSpec state{"recurrent", "past_state.0", "present_state.0", DataType::kFloat32};
  state.update = Update::kReplace;
  state.state_dims = {2, 3};
  spec.pairs.push_back(state);
  KvCache cache(spec, 1);
  EXPECT_EQ(cache.pasts()[0].shape(), (ort::Shape{1, 2, 3}));
  std::vector<ort::Tensor> slots(1);
  slots[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 2, 3});
  slots[0].span<float>()[0] = 5.f;
  cache.commit(slots, 4);
  EXPECT_EQ(cache.pasts()[0].span<float>()[0], 5.f);
  KvCache snapshot = cache.copy();
  EXPECT_FALSE(cache.can_rewind(2));
  EXPECT_THROW(cache.rewind(2), Error);
  EXPECT_TRUE(cache.can_rewind(0));
  cache.rewind(0);
  EXPECT_EQ(cache.pasts()[0].span<float>()[0], 0.f);  // back to the initial zeros
  EXPECT_EQ(snapshot.pasts()[0].span<float>()[0], 5.f);
  EXPECT_EQ(snapshot.length(), 4);
}

TEST(SequenceCopyTest, CopiesEachHeadRow) {
  ort::Tensor src = ort::Tensor::allocate(DataType::kFloat32, {1, 2, 3, 1});
  auto s = src.span<float>();
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<float>(i);
  ort::Tensor dst = ort::Tensor::zeros(DataType::kFloat32, {1, 2, 5, 1});
  copy_sequence_prefix(src, dst, 3);
  std::vector<float> got(dst.span<float>().begin(), dst.span<float>().end());
  EXPECT_EQ(got, (std::vector<float>{0, 1, 2, 0, 0, 3, 4, 5, 0, 0}));
  ort::Tensor wrong = ort::Tensor::zeros(DataType::kFloat32, {1, 3, 5, 1});
  EXPECT_THROW(copy_sequence_prefix(src, wrong, 3), Error);
}

}  // namespace
}  // namespace ogai::kv
