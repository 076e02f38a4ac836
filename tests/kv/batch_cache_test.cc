// BatchCache: rows of different lengths joining from batch-1 caches and leaving back into them,
// for left-padded append rows, prefix rows (explicit-length attention), shared buffers, static
// buffers and recurrent state; the bytes of every row are where the layout says.
#include "kv/batch_cache.h"
#include "kv/row_copy.h"

#include <gtest/gtest.h>

#include "base/error.h"

namespace ogai::kv {
namespace {

CacheSpec spec_of(StorageMode mode, bool prefix_rows) {
  CacheSpec spec;
  spec.mode = mode;
  spec.prefix_rows = prefix_rows;
  spec.max_length = 64;
  spec.pairs.push_back({"full", "past.0", "present.0", DataType::kFloat32, 2, 3});
  spec.pairs.push_back({"state", "past_state", "present_state", DataType::kFloat32, 0, 0, Update::kReplace, 0, {2, 2}});
  return spec;
}

// Value of position s of a row tagged `tag` (every head and element of that position).
float value(int tag, std::int64_t s) { return static_cast<float>(tag * 1000 + s); }

// A batch-1 cache holding `length` positions of row `tag`, built through reserve/bind/commit as a
// prefill step would; its recurrent state is filled with `tag`.
KvCache solo(const CacheSpec& spec, std::int64_t length, int tag) {
  KvCache cache(spec, 1);
  cache.reserve(length);
  std::vector<ort::Tensor> slots(spec.pairs.size());
  cache.bind_presents(slots);
  for (std::size_t i = 0; i < spec.pairs.size(); ++i) {
    const PairSpec& p = spec.pairs[i];
    if (p.update == Update::kReplace) {
      slots[i] = ort::Tensor::allocate(p.dtype, {1, 2, 2});
      for (auto& v : slots[i].span<float>()) v = static_cast<float>(tag);
      continue;
    }
    if (slots[i].empty()) slots[i] = ort::Tensor::allocate(p.dtype, {1, p.kv_heads, length, p.head_dim});
    const std::int64_t positions = slots[i].shape()[2];
    auto data = slots[i].span<float>();
    for (std::size_t k = 0; k < data.size(); ++k)
      data[k] = value(tag, static_cast<std::int64_t>(k / static_cast<std::size_t>(p.head_dim)) % positions);
  }
  cache.commit(slots, length);
  return cache;
}

// Position s of row r of a [rows, heads, positions, dim] tensor, head h, element 0.
float at(const ort::Tensor& t, std::int64_t r, std::int64_t h, std::int64_t s) {
  const auto& d = t.shape();
  return t.span<float>()[static_cast<std::size_t>(((r * d[1] + h) * d[2] + s) * d[3])];
}

void expect_row(const BatchCache& batch, const ort::Tensor& past, std::int64_t r, int tag, std::int64_t length) {
  const std::int64_t offset = batch.left_padded() ? past.shape()[2] - length : 0;
  for (std::int64_t h = 0; h < past.shape()[1]; ++h)
    for (std::int64_t s = 0; s < length; ++s)
      ASSERT_EQ(at(past, r, h, offset + s), value(tag, s)) << "row " << r << " head " << h << " position " << s;
}

void expect_solo(const KvCache& cache, int tag, std::int64_t length) {
  ASSERT_EQ(cache.length(), length);
  const ort::Tensor& past = cache.pasts()[0];
  for (std::int64_t h = 0; h < past.shape()[1]; ++h)
    for (std::int64_t s = 0; s < length; ++s) ASSERT_EQ(at(past, 0, h, s), value(tag, s));
  for (float v : cache.pasts()[1].span<float>()) ASSERT_EQ(v, static_cast<float>(tag));
}

struct Layout {
  StorageMode mode;
  bool prefix_rows;
  bool left_padded;
};

class BatchCacheTest : public ::testing::TestWithParam<Layout> {};

TEST_P(BatchCacheTest, RowsJoinAndLeaveWithTheirBytes) {
  const Layout layout = GetParam();
  CacheSpec spec = spec_of(layout.mode, layout.prefix_rows);
  BatchCache batch(spec);
  EXPECT_EQ(batch.left_padded(), layout.left_padded);
  const std::vector<std::int64_t> lengths = {5, 2, 9, 4};
  for (int tag = 0; tag < 4; ++tag) batch.add_row(solo(spec, lengths[static_cast<std::size_t>(tag)], tag + 1));
  ASSERT_EQ(batch.rows(), 4);
  EXPECT_EQ(batch.longest(), 9);
  auto pasts = batch.pasts();
  ASSERT_EQ(pasts[0]->shape()[0], 4);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(batch.length(r), lengths[static_cast<std::size_t>(r)]);
    expect_row(batch, *pasts[0], r, r + 1, lengths[static_cast<std::size_t>(r)]);
    for (int k = 0; k < 4; ++k) EXPECT_EQ(pasts[1]->span<float>()[static_cast<std::size_t>(r * 4 + k)], r + 1.0f);
  }
  // Row 1 leaves with its state; the last row (tag 4) moves into its place.
  expect_solo(batch.take_row(1), 2, 2);
  ASSERT_EQ(batch.rows(), 3);
  EXPECT_EQ(batch.length(1), 4);
  pasts = batch.pasts();
  expect_row(batch, *pasts[0], 1, 4, 4);
  expect_row(batch, *pasts[0], 0, 1, 5);
  expect_row(batch, *pasts[0], 2, 3, 9);
  // The longest row leaves: the padded width shrinks to the longest left.
  batch.remove_row(2);
  EXPECT_EQ(batch.longest(), 5);
  if (layout.mode == StorageMode::kAppend) {
    EXPECT_EQ(batch.pasts()[0]->shape()[2], 5);
  }
  expect_solo(batch.take_row(0), 1, 5);
  expect_solo(batch.take_row(0), 4, 4);  // the last row: its tensors are handed back
  EXPECT_EQ(batch.rows(), 0);
  EXPECT_EQ(batch.bytes(), 0u);
  batch.add_row(solo(spec, 3, 7));  // an emptied batch takes rows again
  expect_row(batch, *batch.pasts()[0], 0, 7, 3);
}

TEST_P(BatchCacheTest, StepCommitsOnePositionPerRow) {
  CacheSpec spec = spec_of(GetParam().mode, GetParam().prefix_rows);
  BatchCache batch(spec);
  batch.add_row(solo(spec, 3, 1));
  batch.add_row(solo(spec, 6, 2));
  batch.reserve_step();
  std::vector<ort::Tensor> slots(spec.pairs.size());
  batch.bind_presents(slots);
  const bool shared = spec.mode == StorageMode::kSharedBuffer;
  EXPECT_EQ(slots[0].empty(), !shared);
  if (!shared) slots[0] = ort::Tensor::zeros(DataType::kFloat32, {2, 2, 7, 3});  // width 6 + 1
  slots[1] = ort::Tensor::zeros(DataType::kFloat32, {2, 2, 2});
  batch.commit(slots);
  EXPECT_EQ(batch.length(0), 4);
  EXPECT_EQ(batch.length(1), 7);
  std::vector<ort::Tensor> wrong(spec.pairs.size());
  batch.bind_presents(wrong);
  if (!shared) wrong[0] = ort::Tensor::zeros(DataType::kFloat32, {2, 2, 9, 3});
  wrong[1] = ort::Tensor::zeros(DataType::kFloat32, {2, 2, 2});
  if (!shared) {
    EXPECT_THROW(batch.commit(wrong), Error);
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, BatchCacheTest,
                         ::testing::Values(Layout{StorageMode::kAppend, false, true},
                                           Layout{StorageMode::kAppend, true, false},
                                           Layout{StorageMode::kSharedBuffer, true, false}));

// A multi-token step (speculative verification) over left-padded rows: every row takes 3 new
// positions, then each keeps its own prefix; the kept bytes are where the layout says and the
// width shrinks to the longest kept row.
TEST(BatchCacheMultiToken, RowsKeepTheirOwnPrefixes) {
  CacheSpec spec = spec_of(StorageMode::kAppend, false);
  spec.pairs.pop_back();  // append pairs only
  BatchCache batch(spec);
  ASSERT_TRUE(batch.takes_multi_token_steps());
  batch.add_row(solo(spec, 3, 1));
  batch.add_row(solo(spec, 6, 2));
  batch.add_row(solo(spec, 4, 3));
  std::vector<ort::Tensor> slots(1);
  batch.bind_presents(slots);
  const std::int64_t width = batch.width(), added = 3, total = width + added;
  ASSERT_EQ(width, 6);
  // The graph's present: each row's past right-aligned in `width`, then its 3 new positions.
  slots[0] = ort::Tensor::zeros(DataType::kFloat32, {3, 2, total, 3});
  auto data = slots[0].span<float>();
  for (std::int64_t r = 0; r < 3; ++r) {
    const std::int64_t len = batch.length(r);
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t s = 0; s < len + added; ++s)
        for (std::int64_t d = 0; d < 3; ++d)
          data[static_cast<std::size_t>(((r * 2 + h) * total + width - len + s) * 3 + d)] =
              value(static_cast<int>(r + 1), s);
  }
  const void* buffer = slots[0].raw_data();
  batch.commit(slots, added);
  EXPECT_EQ(batch.length(0), 6);
  EXPECT_EQ(batch.length(1), 9);
  const std::vector<std::int64_t> keep = {4, 7, 7};  // row 0 keeps 1 new, rows 1 and 2 keep 1 and 3
  batch.keep_prefixes(keep);
  EXPECT_EQ(batch.pasts()[0]->raw_data(), buffer);  // on the host, rolled back inside the run's buffer
  EXPECT_EQ(batch.width(), 7);
  ASSERT_EQ(batch.pasts()[0]->shape()[2], 7);
  for (std::int64_t r = 0; r < 3; ++r) {
    EXPECT_EQ(batch.length(r), keep[static_cast<std::size_t>(r)]);
    expect_row(batch, *batch.pasts()[0], r, static_cast<int>(r + 1), keep[static_cast<std::size_t>(r)]);
  }
  const ort::Tensor& past = *batch.pasts()[0];  // row 0's left padding (3 positions) holds zeros
  for (std::int64_t h = 0; h < 2; ++h)
    for (std::int64_t s = 0; s < 3; ++s)
      for (std::int64_t d = 0; d < 3; ++d)
        EXPECT_EQ(past.span<float>()[static_cast<std::size_t>(((0 * 2 + h) * 7 + s) * 3 + d)], 0.0f) << h << " " << s;
  batch.keep_prefixes(std::vector<std::int64_t>{4, 6, 7});  // again, over the narrowed tensor: same buffer
  EXPECT_EQ(batch.pasts()[0]->raw_data(), buffer);
  for (std::int64_t r = 0; r < 3; ++r)
    expect_row(batch, *batch.pasts()[0], r, static_cast<int>(r + 1), r == 1 ? 6 : keep[static_cast<std::size_t>(r)]);
  const KvCache taken = batch.take_row(2);
  ASSERT_EQ(taken.length(), 7);
  for (std::int64_t s = 0; s < 7; ++s) EXPECT_EQ(at(taken.pasts()[0], 0, 1, s), value(3, s));
  EXPECT_THROW(batch.keep_prefixes(std::vector<std::int64_t>{8, 7}), Error);  // more than a row holds
  batch.keep_prefixes(std::vector<std::int64_t>{2, 5});  // a second roll-back of the rolled-back rows
  ASSERT_EQ(batch.width(), 5);
  expect_row(batch, *batch.pasts()[0], 0, 1, 2);
  expect_row(batch, *batch.pasts()[0], 1, 2, 5);
  const KvCache last = batch.take_row(1);
  for (std::int64_t s = 0; s < 5; ++s) EXPECT_EQ(at(last.pasts()[0], 0, 0, s), value(2, s));
  const KvCache only = batch.take_row(0);  // the whole tensor, its buffer's owner with it
  ASSERT_EQ(only.length(), 2);
  for (std::int64_t s = 0; s < 2; ++s) EXPECT_EQ(at(only.pasts()[0], 0, 1, s), value(1, s));
}

// keep_right_aligned over rank-4 and combined [2, B, H, W, D] tensors equals a fresh right-aligned
// layout of each row's kept positions (zeros before them), element for element, for rows that keep
// all, some and none of their dropped width; it refuses keeps beyond a row or the width.
TEST(RowCopy, KeepRightAlignedInPlace) {
  for (const bool combined : {false, true}) {
    const std::int64_t planes = combined ? 2 : 1, rows = 3, heads = 2, old_width = 9, dim = 3;
    const std::vector<std::int64_t> lengths = {9, 5, 7}, keep = {6, 5, 2};
    const std::int64_t width = 6;
    ort::Shape shape = {rows, heads, old_width, dim};
    if (combined) shape.insert(shape.begin(), 2);
    ort::Tensor t = ort::Tensor::allocate(DataType::kFloat32, shape);
    auto index = [&](std::int64_t p, std::int64_t r, std::int64_t h, std::int64_t s, std::int64_t w) {
      return static_cast<std::size_t>((((p * rows + r) * heads + h) * w + s) * dim);
    };
    auto tag = [](std::int64_t p, std::int64_t r, std::int64_t h, std::int64_t pos, std::int64_t d) {
      return static_cast<float>(p * 10000 + r * 1000 + h * 100 + pos * 10 + d);
    };
    for (std::int64_t p = 0; p < planes; ++p)
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t h = 0; h < heads; ++h)
          for (std::int64_t s = 0; s < old_width; ++s)
            for (std::int64_t d = 0; d < dim; ++d) {
              const std::int64_t pos = s - (old_width - lengths[static_cast<std::size_t>(r)]);
              t.span<float>()[index(p, r, h, s, old_width) + static_cast<std::size_t>(d)] =
                  pos < 0 ? -1.0f : tag(p, r, h, pos, d);
            }
    const void* buffer = t.raw_data();
    ort::Tensor kept = keep_right_aligned(std::move(t), lengths, keep, width);
    EXPECT_EQ(kept.raw_data(), buffer);
    ASSERT_EQ(kept.shape()[combined ? 3 : 2], width);
    for (std::int64_t p = 0; p < planes; ++p)
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t h = 0; h < heads; ++h)
          for (std::int64_t s = 0; s < width; ++s)
            for (std::int64_t d = 0; d < dim; ++d) {
              const std::int64_t pos = s - (width - keep[static_cast<std::size_t>(r)]);
              ASSERT_EQ(kept.span<float>()[index(p, r, h, s, width) + static_cast<std::size_t>(d)],
                        pos < 0 ? 0.0f : tag(p, r, h, pos, d))
                  << "plane " << p << " row " << r << " head " << h << " position " << s;
            }
  }
  ort::Tensor t = ort::Tensor::zeros(DataType::kFloat32, {2, 1, 4, 1});
  EXPECT_THROW(keep_right_aligned(std::move(t), std::vector<std::int64_t>{4, 2}, std::vector<std::int64_t>{3, 3}, 3),
               Error);  // row 1 keeps more than it holds
  ort::Tensor u = ort::Tensor::zeros(DataType::kFloat32, {2, 1, 4, 1});
  EXPECT_THROW(keep_right_aligned(std::move(u), std::vector<std::int64_t>{4, 2}, std::vector<std::int64_t>{3, 1}, 2),
               Error);  // narrower than a kept row
}

// zero_row_positions zeroes exactly the positions asked, in every head of the row (and both planes
// of a combined [2, B, H, S, D] tensor), and refuses ranges outside the tensor.
TEST(RowCopy, ZeroRowPositions) {
  ort::Tensor t = ort::Tensor::allocate(DataType::kFloat32, {2, 2, 5, 3});
  for (float& v : t.span<float>()) v = 7.0f;
  zero_row_positions(t, 1, 1, 2);
  for (std::int64_t r = 0; r < 2; ++r)
    for (std::int64_t h = 0; h < 2; ++h)
      for (std::int64_t s = 0; s < 5; ++s)
        for (std::int64_t d = 0; d < 3; ++d)
          EXPECT_EQ(t.span<float>()[static_cast<std::size_t>(((r * 2 + h) * 5 + s) * 3 + d)],
                    r == 1 && (s == 1 || s == 2) ? 0.0f : 7.0f)
              << r << " " << h << " " << s;
  ort::Tensor combined = ort::Tensor::allocate(DataType::kFloat32, {2, 1, 1, 4, 2});
  for (float& v : combined.span<float>()) v = 7.0f;
  zero_row_positions(combined, 0, 3, 1);
  for (std::int64_t p = 0; p < 2; ++p)
    for (std::int64_t s = 0; s < 4; ++s)
      EXPECT_EQ(combined.span<float>()[static_cast<std::size_t>((p * 4 + s) * 2)], s == 3 ? 0.0f : 7.0f);
  EXPECT_THROW(zero_row_positions(t, 2, 0, 1), Error);  // no row 2
  EXPECT_THROW(zero_row_positions(t, 0, 4, 2), Error);  // past the last position
}

// Recurrent state cannot rewind and prefix-row or shared-buffer layouts take no multi-token step.
TEST(BatchCacheMultiToken, RefusedWhereRowsCannotRewindOrPad) {
  CacheSpec recurrent = spec_of(StorageMode::kAppend, false);
  BatchCache batch(recurrent);
  EXPECT_FALSE(batch.takes_multi_token_steps());
  batch.add_row(solo(recurrent, 3, 1));
  batch.keep_prefixes(std::vector<std::int64_t>{3});  // keeping everything is fine
  EXPECT_THROW(batch.keep_prefixes(std::vector<std::int64_t>{2}), Error);
  std::vector<ort::Tensor> slots(2);
  batch.bind_presents(slots);
  slots[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 2, 5, 3});
  slots[1] = ort::Tensor::zeros(DataType::kFloat32, {1, 2, 2});
  EXPECT_THROW(batch.commit(slots, 2), Error);
  CacheSpec shared = spec_of(StorageMode::kSharedBuffer, true);
  shared.pairs.pop_back();
  EXPECT_FALSE(BatchCache(shared).takes_multi_token_steps());
}

TEST(BatchCacheRoom, StaticCapacityAndContextLimit) {
  CacheSpec spec;
  spec.max_length = 8;
  spec.pairs.push_back({"full", "past", "present", DataType::kFloat32, 1, 2, Update::kIndexedScatter, 6});
  BatchCache batch(spec);
  KvCache five(spec, 1);
  five.reserve(5);
  std::vector<ort::Tensor> slots(1);
  slots[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 1, 6, 2});
  five.commit(slots, 5);
  batch.add_row(std::move(five));
  EXPECT_EQ(batch.room_error(0), "");
  std::vector<ort::Tensor> step(1);
  step[0] = ort::Tensor::zeros(DataType::kFloat32, {1, 1, 6, 2});
  batch.commit(step);
  EXPECT_NE(batch.room_error(0).find("capacity of 6"), std::string::npos) << batch.room_error(0);
  EXPECT_THROW(batch.add_row(KvCache(spec, 1)), Error);  // an empty cache cannot join
}

}  // namespace
}  // namespace ogai::kv
