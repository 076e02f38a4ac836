#include "kv/batch_cache.h"

#include <algorithm>

#include "base/error.h"
#include "kv/row_copy.h"

namespace ogai::kv {

BatchCache::BatchCache(const CacheSpec& spec, ort::Memory memory) : spec_(&spec), memory_(std::move(memory)) {
  for (const auto& pair : spec.pairs)
    left_padded_ = left_padded_ || (pair.update == Update::kAppend && spec.mode == StorageMode::kAppend);
  left_padded_ = left_padded_ && !spec.prefix_rows;
  store_.resize(spec.pairs.size());
  views_.resize(spec.pairs.size());
  feed_.assign(spec.pairs.size(), nullptr);
}

bool BatchCache::shared(const PairSpec& pair) const {
  return pair.update == Update::kAppend && spec_->mode == StorageMode::kSharedBuffer;
}

ort::Shape BatchCache::row_shape(const PairSpec& pair, std::int64_t rows, std::int64_t positions) const {
  switch (pair.update) {
    case Update::kReplace: {
      ort::Shape shape = {rows};
      shape.insert(shape.end(), pair.state_dims.begin(), pair.state_dims.end());
      return shape;
    }
    case Update::kIndexedScatter:
      return {rows, pair.kv_heads, pair.capacity, pair.head_dim};
    case Update::kAppend:
      break;
  }
  if (pair.combined) return {2, rows, pair.kv_heads, positions, pair.head_dim};
  return {rows, pair.kv_heads, positions, pair.head_dim};
}

std::int64_t BatchCache::longest() const {
  return lengths_.empty() ? 0 : *std::max_element(lengths_.begin(), lengths_.end());
}

void BatchCache::adopt(KvCache&& solo) {
  for (std::size_t i = 0; i < store_.size(); ++i) {
    ort::Tensor& past = solo.pasts_[i];
    if (past.location() == memory_.location()) {
      store_[i] = std::move(past);
      continue;
    }
    store_[i] = memory_.allocate(past.dtype(), past.shape());
    const ort::ByteRange all{0, 0, past.byte_size()};
    ort::copy_ranges(past, store_[i], {&all, 1});
  }
  lengths_.assign(1, solo.length_);
  width_ = solo.length_;
  capacity_ = solo.capacity_;
  row_capacity_ = 1;
}

// Re-lays every pair that is not a shared buffer: new row k takes old row order[k] (-1: the
// joining cache), right-aligned in `width` positions for kAppend-storage append pairs.
void BatchCache::relay(std::span<const std::int64_t> order, const KvCache* joining, std::int64_t width) {
  const auto rows = static_cast<std::int64_t>(order.size());
  for (std::size_t i = 0; i < store_.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    if (shared(pair)) continue;
    const bool append = pair.update == Update::kAppend;
    ort::Tensor next = append ? memory_.zeros(pair.dtype, row_shape(pair, rows, width))
                              : memory_.allocate(pair.dtype, row_shape(pair, rows, 0));
    for (std::int64_t k = 0; k < rows; ++k) {
      const std::int64_t from = order[static_cast<std::size_t>(k)];
      const ort::Tensor& src = from < 0 ? joining->pasts_[i] : store_[i];
      const std::int64_t src_row = from < 0 ? 0 : from;
      if (!append) {
        copy_row(src, src_row, next, k);
        continue;
      }
      const std::int64_t len = from < 0 ? joining->length_ : lengths_[static_cast<std::size_t>(from)];
      const std::int64_t src_at = from < 0 || !left_padded_ ? 0 : width_ - len;
      copy_row_positions(src, src_row, src_at, next, k, left_padded_ ? width - len : 0, len);
    }
    store_[i] = std::move(next);
  }
}

void BatchCache::grow_shared(std::int64_t row_capacity, std::int64_t capacity) {
  for (std::size_t i = 0; i < store_.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    if (!shared(pair)) continue;
    ort::Tensor bigger = memory_.zeros(pair.dtype, {row_capacity, pair.kv_heads, capacity, pair.head_dim});
    for (std::int64_t r = 0; r < rows(); ++r) copy_row_positions(store_[i], r, 0, bigger, r, 0, length(r));
    store_[i] = std::move(bigger);
  }
  row_capacity_ = row_capacity;
  capacity_ = capacity;
}

void BatchCache::add_row(KvCache&& solo) {
  if (solo.spec_ != spec_ || solo.batch_ != 1 || solo.length_ <= 0)
    fail(ErrorCode::kInternal, "batch cache", "a joining row must be a non-empty batch-1 cache of the same decoder");
  if (rows() == 0) {
    adopt(std::move(solo));
    rebuild_views();
    return;
  }
  const std::int64_t len = solo.length_;
  std::vector<std::int64_t> order(static_cast<std::size_t>(rows()));
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int64_t>(k);
  order.push_back(-1);
  const std::int64_t width = std::max(width_, len);
  relay(order, &solo, width);
  if (spec_->mode == StorageMode::kSharedBuffer) {
    if (rows() + 1 > row_capacity_ || len > capacity_)
      grow_shared(rows() + 1 > row_capacity_ ? std::max(rows() + 1, 2 * row_capacity_) : row_capacity_,
                  std::max(capacity_, len));
    for (std::size_t i = 0; i < store_.size(); ++i)
      if (shared(spec_->pairs[i])) copy_row_positions(solo.pasts_[i], 0, 0, store_[i], rows(), 0, len);
  }
  lengths_.push_back(len);
  width_ = width;
  rebuild_views();
}

void BatchCache::remove_row(std::int64_t row) {
  OGAI_CHECK(row >= 0 && row < rows());
  const std::int64_t last = rows() - 1;
  if (last == 0) {
    for (auto& t : store_) t = ort::Tensor();
    lengths_.clear();
    width_ = capacity_ = row_capacity_ = 0;
    rebuild_views();
    return;
  }
  for (std::size_t i = 0; i < store_.size(); ++i)
    if (shared(spec_->pairs[i]) && row != last) copy_row_positions(store_[i], last, 0, store_[i], row, 0, length(last));
  std::vector<std::int64_t> order;
  std::int64_t width = 0;
  for (std::int64_t k = 0; k < last; ++k) {
    order.push_back(k == row ? last : k);
    width = std::max(width, length(order.back()));
  }
  relay(order, nullptr, width);
  lengths_[static_cast<std::size_t>(row)] = lengths_.back();
  lengths_.pop_back();
  width_ = width;
  rebuild_views();
}

KvCache BatchCache::extract(std::int64_t row) const {
  KvCache c;
  c.spec_ = spec_;
  c.batch_ = 1;
  c.length_ = length(row);
  c.capacity_ = spec_->mode == StorageMode::kSharedBuffer ? c.length_ : 0;
  for (std::size_t i = 0; i < store_.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    c.has_state_pairs_ = c.has_state_pairs_ || pair.update == Update::kReplace;
    ort::Tensor t = ort::Tensor::allocate(pair.dtype, row_shape(pair, 1, c.length_));
    if (pair.update == Update::kAppend)
      copy_row_positions(store_[i], row, left_padded_ ? width_ - c.length_ : 0, t, 0, 0, c.length_);
    else
      copy_row(store_[i], row, t, 0);
    c.pasts_.push_back(std::move(t));
  }
  return c;
}

KvCache BatchCache::take_row(std::int64_t row) {
  OGAI_CHECK(row >= 0 && row < rows());
  const bool whole = rows() == 1 && width_ == length(0) && memory_.location().host() &&
                     (spec_->mode != StorageMode::kSharedBuffer || row_capacity_ == 1);
  if (!whole) {
    KvCache c = extract(row);
    remove_row(row);
    return c;
  }
  KvCache c;
  c.spec_ = spec_;
  c.batch_ = 1;
  c.length_ = length(0);
  c.capacity_ = capacity_;
  for (std::size_t i = 0; i < store_.size(); ++i) {
    c.has_state_pairs_ = c.has_state_pairs_ || spec_->pairs[i].update == Update::kReplace;
    c.pasts_.push_back(std::move(store_[i]));
  }
  remove_row(0);
  return c;
}

std::string BatchCache::room_error(std::int64_t row) const {
  const std::int64_t next = length(row) + 1;
  if (spec_->max_length > 0 && next > spec_->max_length)
    return fmt::format("{} positions exceed the context limit of {}", next, spec_->max_length);
  for (const auto& pair : spec_->pairs)
    if (pair.update == Update::kIndexedScatter && next > pair.capacity)
      return fmt::format("{}: {} positions exceed the static cache's capacity of {}", pair.input, next, pair.capacity);
  return {};
}

void BatchCache::reserve_step() {
  if (spec_->mode != StorageMode::kSharedBuffer || rows() == 0) return;
  const std::int64_t need = longest() + 1;
  if (need <= capacity_) return;
  std::int64_t grown = std::max(need, 2 * capacity_);
  if (spec_->max_length > 0) grown = std::max(need, std::min(grown, spec_->max_length));
  grow_shared(row_capacity_, grown);
  rebuild_views();
}

void BatchCache::rebuild_views() {
  ++membership_;  // called on every join, leave and growth
  for (std::size_t i = 0; i < store_.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    if (rows() == 0) {
      views_[i] = ort::Tensor();
      feed_[i] = nullptr;
    } else if (shared(pair)) {
      views_[i] = ort::Tensor::view(pair.dtype, {rows(), pair.kv_heads, capacity_, pair.head_dim}, store_[i].raw_data(),
                                    store_[i].location());
      feed_[i] = &views_[i];
    } else {
      feed_[i] = &store_[i];
    }
  }
}

std::span<const ort::Tensor* const> BatchCache::pasts() { return feed_; }

void BatchCache::bind_presents(std::span<ort::Tensor> slots) {
  OGAI_CHECK(slots.size() == store_.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    slots[i] = shared(pair)
                   ? ort::Tensor::view(pair.dtype, views_[i].shape(), store_[i].raw_data(), store_[i].location())
                   : ort::Tensor();
  }
}

void BatchCache::commit(std::span<ort::Tensor> presents, std::int64_t added) {
  OGAI_CHECK(presents.size() == store_.size());
  if (added != 1 && !takes_multi_token_steps())
    fail(ErrorCode::kInternal, "batch cache", "a multi-token step needs left-padded append pairs");
  for (std::size_t i = 0; i < presents.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    ort::Shape want = shared(pair) ? views_[i].shape() : row_shape(pair, rows(), width_ + added);
    check_present(pair, presents[i], want);
  }
  for (std::size_t i = 0; i < presents.size(); ++i)
    if (!shared(spec_->pairs[i])) store_[i] = std::move(presents[i]);
  for (auto& len : lengths_) len += added;
  width_ += added;
}

bool BatchCache::takes_multi_token_steps() const {
  if (!left_padded_) return false;
  for (const auto& pair : spec_->pairs)
    if (pair.update != Update::kAppend) return false;
  return true;
}

void BatchCache::keep_prefixes(std::span<const std::int64_t> keep) {
  OGAI_CHECK(keep.size() == lengths_.size());
  bool all = true;
  std::int64_t width = 0;
  for (std::size_t r = 0; r < keep.size(); ++r) {
    OGAI_CHECK(keep[r] >= 1 && keep[r] <= lengths_[r]);
    all = all && keep[r] == lengths_[r];
    width = std::max(width, keep[r]);
  }
  if (all) return;
  for (std::size_t i = 0; i < store_.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    if (pair.update == Update::kReplace)
      fail(ErrorCode::kInternal, "batch cache", "{}: recurrent state cannot rewind", pair.input);
    if (pair.update != Update::kAppend || shared(pair)) continue;
    // On the host, left-padded rows roll back inside the run's own buffer (no allocation).
    const bool host = memory_.location().host();
    if (host && left_padded_) {
      store_[i] = keep_right_aligned(std::move(store_[i]), lengths_, keep, width);
      continue;
    }
    // Elsewhere a fresh tensor; on the host only each row's padding is zeroed (the mask hides it;
    // zeros keep it finite).
    ort::Tensor next = host ? memory_.allocate(pair.dtype, row_shape(pair, rows(), width))
                            : memory_.zeros(pair.dtype, row_shape(pair, rows(), width));
    for (std::int64_t r = 0; r < rows(); ++r) {
      const std::int64_t len = length(r), kept = keep[static_cast<std::size_t>(r)];
      const std::int64_t pad = width - kept;
      if (host && pad > 0) zero_row_positions(next, r, left_padded_ ? 0 : kept, pad);
      copy_row_positions(store_[i], r, left_padded_ ? width_ - len : 0, next, r, left_padded_ ? pad : 0, kept);
    }
    store_[i] = std::move(next);
  }
  lengths_.assign(keep.begin(), keep.end());
  width_ = width;
  rebuild_views();
}

std::size_t BatchCache::bytes() const {
  std::size_t total = 0;
  for (const auto& t : store_) total += t.empty() ? 0 : t.byte_size();
  return total;
}

}  // namespace ogai::kv
