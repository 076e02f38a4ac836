#include "kv/kv_cache.h"

#include <algorithm>

#include "base/error.h"
#include "kv/sequence_copy.h"

namespace ogai::kv {

void check_present(const PairSpec& pair, const ort::Tensor& present, const ort::Shape& want) {
  if (present.shape() != want || present.dtype() != pair.dtype)
    fail(ErrorCode::kInvalidPackage, pair.output, "the graph produced {} {}, expected {} {}", dtype_name(present.dtype()),
         ort::shape_string(present.shape()), dtype_name(pair.dtype), ort::shape_string(want));
}

KvCache::KvCache(const CacheSpec& spec, std::int64_t batch) : spec_(&spec), batch_(batch) {
  if (batch <= 0) fail(ErrorCode::kInvalidArgument, "kv cache", "batch size {} must be positive", batch);
  pasts_.reserve(spec.pairs.size());
  for (const auto& pair : spec.pairs) {
    pasts_.push_back(ort::Tensor::zeros(pair.dtype, initial_shape(pair)));
    has_state_pairs_ = has_state_pairs_ || pair.update == Update::kReplace;
  }
}

ort::Shape KvCache::shape_of(const PairSpec& pair, std::int64_t positions) const {
  if (pair.combined) return {2, batch_, pair.kv_heads, positions, pair.head_dim};
  return {batch_, pair.kv_heads, positions, pair.head_dim};
}

ort::Shape KvCache::initial_shape(const PairSpec& pair) const {
  switch (pair.update) {
    case Update::kIndexedScatter: return shape_of(pair, pair.capacity);
    case Update::kReplace: {
      ort::Shape shape = {batch_};
      shape.insert(shape.end(), pair.state_dims.begin(), pair.state_dims.end());
      return shape;
    }
    case Update::kAppend: break;
  }
  return shape_of(pair, 0);
}

bool KvCache::shared(const PairSpec& pair) const {
  return pair.update == Update::kAppend && spec_->mode == StorageMode::kSharedBuffer;
}

void KvCache::reserve(std::int64_t total_length) {
  if (spec_->max_length > 0 && total_length > spec_->max_length)
    fail(ErrorCode::kInvalidArgument, "kv cache", "{} positions exceed the context limit of {}", total_length,
         spec_->max_length);
  for (const auto& pair : spec_->pairs)
    if (pair.update == Update::kIndexedScatter && total_length > pair.capacity)
      fail(ErrorCode::kInvalidArgument, pair.input, "{} positions exceed the static cache's capacity of {}",
           total_length, pair.capacity);
  if (spec_->mode != StorageMode::kSharedBuffer || total_length <= capacity_) return;
  std::int64_t grown = std::max(total_length, capacity_ * 2);
  if (spec_->max_length > 0) grown = std::min(grown, spec_->max_length);
  grow(grown);
}

void KvCache::grow(std::int64_t capacity) {
  for (std::size_t i = 0; i < pasts_.size(); ++i) {
    if (!shared(spec_->pairs[i])) continue;
    ort::Tensor bigger = ort::Tensor::zeros(spec_->pairs[i].dtype, shape_of(spec_->pairs[i], capacity));
    copy_sequence_prefix(pasts_[i], bigger, length_);
    pasts_[i] = std::move(bigger);
  }
  capacity_ = capacity;
}

void KvCache::bind_presents(std::span<ort::Tensor> slots) const {
  OGAI_CHECK(slots.size() == pasts_.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (shared(spec_->pairs[i])) {
      auto& past = const_cast<ort::Tensor&>(pasts_[i]);  // the graph writes the new positions in place
      slots[i] = ort::Tensor::view(past.dtype(), past.shape(), past.raw_data());
    } else {
      slots[i] = ort::Tensor();
    }
  }
}

ort::Shape KvCache::expected_present(const PairSpec& pair, std::int64_t new_tokens) const {
  if (pair.update != Update::kAppend) return initial_shape(pair);
  return shape_of(pair, shared(pair) ? capacity_ : length_ + new_tokens);
}

void KvCache::commit(std::span<ort::Tensor> presents, std::int64_t new_tokens) {
  OGAI_CHECK(presents.size() == pasts_.size());
  for (std::size_t i = 0; i < presents.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    ort::Shape want = expected_present(pair, new_tokens);
    check_present(pair, presents[i], want);
  }
  for (std::size_t i = 0; i < presents.size(); ++i)
    if (!shared(spec_->pairs[i])) pasts_[i] = std::move(presents[i]);
  length_ += new_tokens;
}

bool KvCache::can_rewind(std::int64_t length) const {
  return length >= 0 && length <= length_ && (!has_state_pairs_ || length == 0 || length == length_);
}

void KvCache::reset_states() {
  for (std::size_t i = 0; i < pasts_.size(); ++i)
    if (spec_->pairs[i].update == Update::kReplace)
      pasts_[i] = ort::Tensor::zeros(spec_->pairs[i].dtype, initial_shape(spec_->pairs[i]));
}

void KvCache::rewind(std::int64_t length) {
  if (length < 0 || length > length_)
    fail(ErrorCode::kInvalidArgument, "kv cache", "cannot rewind to {} positions: it holds {}", length, length_);
  if (!can_rewind(length))
    fail(ErrorCode::kUnsupported, "kv cache",
         "recurrent (replace) state cannot rewind from {} to {} positions; restore a snapshot instead", length_, length);
  if (length == length_) return;
  for (std::size_t i = 0; i < pasts_.size(); ++i) {
    const PairSpec& pair = spec_->pairs[i];
    if (pair.update != Update::kAppend || shared(pair)) continue;  // buffers: the length is logical
    ort::Tensor shorter = ort::Tensor::allocate(pair.dtype, shape_of(pair, length));
    copy_sequence_prefix(pasts_[i], shorter, length);
    pasts_[i] = std::move(shorter);
  }
  if (length == 0) reset_states();
  length_ = length;
}

std::size_t KvCache::bytes() const {
  std::size_t total = 0;
  for (const auto& p : pasts_) total += p.empty() ? 0 : p.byte_size();
  return total;
}

KvCache KvCache::copy() const {
  KvCache c;
  c.spec_ = spec_;
  c.batch_ = batch_;
  c.length_ = length_;
  c.capacity_ = capacity_;
  c.has_state_pairs_ = has_state_pairs_;
  c.pasts_.reserve(pasts_.size());
  for (const auto& p : pasts_) c.pasts_.push_back(ort::Tensor::copy_of(p));
  return c;
}

ort::Tensor KvCache::borrow(std::size_t index) const {
  OGAI_CHECK(index < pasts_.size());
  const ort::Tensor& past = pasts_[index];
  const PairSpec& pair = spec_->pairs[index];
  if (pair.update == Update::kReplace) return ort::Tensor::view(past.dtype(), past.shape(), const_cast<void*>(past.raw_data()));
  ort::Shape shape = shape_of(pair, length_);
  const bool exact = pair.update == Update::kAppend && !shared(pair);
  if (exact || (batch_ == 1 && pair.kv_heads == 1))
    return ort::Tensor::view(past.dtype(), std::move(shape), const_cast<void*>(past.raw_data()));
  ort::Tensor copy = ort::Tensor::allocate(past.dtype(), std::move(shape));
  copy_sequence_prefix(past, copy, length_);
  return copy;
}

}  // namespace ogai::kv
