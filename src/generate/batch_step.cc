#include "generate/batch_step.h"

#include <algorithm>

#include "base/error.h"
#include "generate/index_feed.h"

namespace ogai::generate {

std::int64_t BatchStep::offset(std::int64_t row) const {
  if (!decoder_.spec().mrope) return 0;
  if (static_cast<std::size_t>(row) >= offsets_.size())
    fail(ErrorCode::kInternal, "batch step", "row {} has no rope delta ({} set)", row, offsets_.size());
  return offsets_[static_cast<std::size_t>(row)];
}

void BatchStep::build_mask(const kv::BatchCache& cache) {
  const std::int64_t rows = cache.rows();
  const std::int64_t total = cache.longest() + 1;
  // One row whose mask was built last step: all ones, one more column.
  if (rows == 1 && cache.membership() == mask_membership_ && static_cast<std::int64_t>(mask_.size()) + 1 == total) {
    mask_.push_back(1);
    return;
  }
  mask_membership_ = cache.membership();
  mask_.assign(static_cast<std::size_t>(rows * total), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t ones = cache.length(r) + 1;
    auto begin = mask_.begin() + r * total + (cache.left_padded() ? total - ones : 0);
    std::fill(begin, begin + ones, 1);
  }
}

StepOutput BatchStep::run(std::span<const TokenId> tokens, kv::BatchCache& cache) {
  const std::int64_t rows = cache.rows();
  OGAI_CHECK(rows > 0 && static_cast<std::int64_t>(tokens.size()) == rows);
  cache.reserve_step();
  positions_.resize(static_cast<std::size_t>(rows));
  lengths_.resize(static_cast<std::size_t>(2 * rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    positions_[static_cast<std::size_t>(r)] = cache.length(r) + offset(r);
    lengths_[static_cast<std::size_t>(r)] = cache.length(r);
    lengths_[static_cast<std::size_t>(rows + r)] = cache.length(r) + 1;
  }
  if (!decoder_.spec().mask_input.empty()) build_mask(cache);
  return execute(tokens, 1, cache.longest() + 1, cache);
}

void BatchStep::build_multi_feeds(const kv::BatchCache& cache, std::span<const std::int64_t> real, std::int64_t seq) {
  const std::int64_t rows = cache.rows(), width = cache.width(), total = width + seq;
  mask_membership_ = ~std::uint64_t{0};  // mask_ no longer matches any membership
  mask_.assign(static_cast<std::size_t>(rows * total), 0);
  positions_.resize(static_cast<std::size_t>(rows * seq));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t len = cache.length(r), n = real[static_cast<std::size_t>(r)];
    if (n < 1 || n > seq) fail(ErrorCode::kInternal, "batch step", "row {} has {} real tokens of {}", r, n, seq);
    auto begin = mask_.begin() + r * total + (width - len);
    std::fill(begin, begin + len + n, 1);
    for (std::int64_t s = 0; s < seq; ++s)
      positions_[static_cast<std::size_t>(r * seq + s)] = s < n ? len + s + offset(r) : 1;  // 1: HF's padding position
  }
}

StepOutput BatchStep::run(std::span<const TokenId> tokens, std::span<const std::int64_t> real, std::int64_t seq,
                          kv::BatchCache& cache) {
  const std::int64_t rows = cache.rows();
  OGAI_CHECK(rows > 0 && seq >= 1 && static_cast<std::int64_t>(tokens.size()) == rows * seq &&
             static_cast<std::int64_t>(real.size()) == rows);
  if (!cache.takes_multi_token_steps() || decoder_.spec().mask_input.empty())
    fail(ErrorCode::kInternal, "batch step", "multi-token steps need a left-padded append cache and a mask input");
  build_multi_feeds(cache, real, seq);
  StepOutput out = execute(tokens, seq, cache.width() + seq, cache);
  return out;
}

StepOutput BatchStep::execute(std::span<const TokenId> tokens, std::int64_t seq, std::int64_t mask_width,
                              kv::BatchCache& cache) {
  const DecoderSpec& spec = decoder_.spec();
  const std::int64_t rows = cache.rows();
  ort::Tensor owned[5];
  std::size_t n = 0;
  owned[n++] = ids_feed(spec.token_dtype, {rows, seq}, tokens, wide_ids_, spec.token_input);
  if (!spec.mask_input.empty())
    owned[n++] = index_feed(spec.mask_dtype, {rows, mask_width}, mask_, narrow_[0], spec.mask_input);
  if (!spec.position_input.empty() && spec.mrope) {
    // Past the prompt every axis holds the same position (offset by the row's rope delta already).
    positions3_.resize(static_cast<std::size_t>(3 * rows * seq));
    for (std::size_t a = 0; a < 3; ++a) std::copy(positions_.begin(), positions_.end(), positions3_.begin() + a * positions_.size());
    owned[n++] = index_feed(spec.position_dtype, {3, rows, seq}, positions3_, narrow_[1], spec.position_input);
  } else if (!spec.position_input.empty()) {
    owned[n++] = index_feed(spec.position_dtype, {rows, seq}, positions_, narrow_[1], spec.position_input);
  }
  if (!spec.write_indices_input.empty()) owned[n++] = ort::Tensor::view(DataType::kInt64, {rows}, lengths_.data());
  if (!spec.cache_lengths_input.empty())
    owned[n++] = ort::Tensor::view(DataType::kInt64, {rows}, lengths_.data() + rows);
  auto pasts = cache.pasts();
  inputs_.resize(n + pasts.size());
  for (std::size_t i = 0; i < n; ++i) inputs_[i] = &owned[i];
  std::copy(pasts.begin(), pasts.end(), inputs_.begin() + static_cast<std::ptrdiff_t>(n));
  if (!spec.encoder_inputs.empty()) {
    if (static_cast<std::int64_t>(cross_rows_.size()) != rows)
      fail(ErrorCode::kInternal, "batch step", "{} rows but {} rows of encoder outputs", rows, cross_rows_.size());
    for (const ort::Tensor& t : cross_.feeds(cross_rows_, spec.encoder_inputs)) inputs_.push_back(&t);
  }
  outputs_.resize(decoder_.output_count());
  for (auto& t : outputs_) t = ort::Tensor();
  std::span<ort::Tensor> presents(outputs_.data() + (outputs_.size() - pasts.size()), pasts.size());
  cache.bind_presents(presents);
  StepOutput out;
  out.run_seconds = feed_ == Feed::kBound ? decoder_.run(binding_, inputs_, outputs_, cache.location())
                                          : decoder_.run(inputs_, outputs_);
  cache.commit(presents, seq);
  out.logits = std::move(outputs_[0]);
  out.locate(seq);  // every position: decode and verification read them all
  if (!spec.hidden_output.empty()) out.hidden = std::move(outputs_[1]);
  return out;
}

}  // namespace ogai::generate
