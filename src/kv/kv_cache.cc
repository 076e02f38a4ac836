#include "kv/kv_cache.h"

#include <algorithm>

#include "base/error.h"
#include "kv/sequence_copy.h"

namespace ogai::kv {

KvCache::KvCache(const CacheSpec& spec, std::int64_t batch) : spec_(&spec), batch_(batch) {
  if (batch <= 0) fail(ErrorCode::kInvalidArgument, "kv cache", "batch size {} must be positive", batch);
  pasts_.reserve(spec.pairs.size());
  for (const auto& pair : spec.pairs) pasts_.push_back(ort::Tensor::zeros(pair.dtype, past_shape(pair, 0)));
}

ort::Shape KvCache::past_shape(const PairSpec& pair, std::int64_t positions) const {
  return {batch_, pair.kv_heads, positions, pair.head_dim};
}

void KvCache::reserve(std::int64_t total_length) {
  if (spec_->max_length > 0 && total_length > spec_->max_length)
    fail(ErrorCode::kInvalidArgument, "kv cache", "{} positions exceed the context limit of {}", total_length,
         spec_->max_length);
  if (spec_->mode != StorageMode::kSharedBuffer || total_length <= capacity_) return;
  std::int64_t grown = std::max(total_length, capacity_ * 2);
  if (spec_->max_length > 0) grown = std::min(grown, spec_->max_length);
  grow(grown);
}

void KvCache::grow(std::int64_t capacity) {
  for (std::size_t i = 0; i < pasts_.size(); ++i) {
    ort::Tensor bigger = ort::Tensor::zeros(spec_->pairs[i].dtype, past_shape(spec_->pairs[i], capacity));
    copy_sequence_prefix(pasts_[i], bigger, length_);
    pasts_[i] = std::move(bigger);
  }
  capacity_ = capacity;
}

void KvCache::bind_presents(std::span<ort::Tensor> slots) const {
  OGAI_CHECK(slots.size() == pasts_.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (spec_->mode == StorageMode::kSharedBuffer) {
      auto& past = const_cast<ort::Tensor&>(pasts_[i]);  // the graph writes the new positions in place
      slots[i] = ort::Tensor::view(past.dtype(), past.shape(), past.raw_data());
    } else {
      slots[i] = ort::Tensor();
    }
  }
}

void KvCache::commit(std::span<ort::Tensor> presents, std::int64_t new_tokens) {
  OGAI_CHECK(presents.size() == pasts_.size());
  const std::int64_t expected = spec_->mode == StorageMode::kSharedBuffer ? capacity_ : length_ + new_tokens;
  for (std::size_t i = 0; i < presents.size(); ++i) {
    ort::Shape want = past_shape(spec_->pairs[i], expected);
    if (presents[i].shape() != want || presents[i].dtype() != spec_->pairs[i].dtype)
      fail(ErrorCode::kInvalidPackage, spec_->pairs[i].output, "the graph produced {} {}, expected {} {}",
           dtype_name(presents[i].dtype()), ort::shape_string(presents[i].shape()), dtype_name(spec_->pairs[i].dtype),
           ort::shape_string(want));
  }
  if (spec_->mode == StorageMode::kAppend)
    for (std::size_t i = 0; i < presents.size(); ++i) pasts_[i] = std::move(presents[i]);
  length_ += new_tokens;
}

ort::Tensor KvCache::borrow(std::size_t index) const {
  OGAI_CHECK(index < pasts_.size());
  const ort::Tensor& past = pasts_[index];
  const PairSpec& pair = spec_->pairs[index];
  ort::Shape shape = past_shape(pair, length_);
  if (spec_->mode == StorageMode::kAppend || (batch_ == 1 && pair.kv_heads == 1))
    return ort::Tensor::view(past.dtype(), std::move(shape), const_cast<void*>(past.raw_data()));
  ort::Tensor copy = ort::Tensor::allocate(past.dtype(), std::move(shape));
  copy_sequence_prefix(past, copy, length_);
  return copy;
}

void KvCache::rewind(std::int64_t length) {
  if (length < 0 || length > length_)
    fail(ErrorCode::kInvalidArgument, "kv cache", "cannot rewind to {} positions: it holds {}", length, length_);
  if (spec_->mode == StorageMode::kAppend) {
    for (std::size_t i = 0; i < pasts_.size(); ++i) {
      ort::Tensor shorter = ort::Tensor::allocate(spec_->pairs[i].dtype, past_shape(spec_->pairs[i], length));
      copy_sequence_prefix(pasts_[i], shorter, length);
      pasts_[i] = std::move(shorter);
    }
  }
  length_ = length;
}

KvCache KvCache::copy() const {
  KvCache c;
  c.spec_ = spec_;
  c.batch_ = batch_;
  c.length_ = length_;
  c.capacity_ = capacity_;
  c.pasts_.reserve(pasts_.size());
  for (const auto& p : pasts_) c.pasts_.push_back(ort::Tensor::copy_of(p));
  return c;
}

}  // namespace ogai::kv
