#include "generate/batch_step.h"

#include <algorithm>

#include "base/error.h"
#include "generate/index_feed.h"

namespace ogai::generate {

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

StepOutput BatchStep::run(std::span<const std::int64_t> tokens, kv::BatchCache& cache) {
  const DecoderSpec& spec = decoder_.spec();
  const std::int64_t rows = cache.rows();
  OGAI_CHECK(rows > 0 && static_cast<std::int64_t>(tokens.size()) == rows);
  cache.reserve_step();
  positions_.resize(static_cast<std::size_t>(rows));
  lengths_.resize(static_cast<std::size_t>(2 * rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    positions_[static_cast<std::size_t>(r)] = cache.length(r);
    lengths_[static_cast<std::size_t>(r)] = cache.length(r);
    lengths_[static_cast<std::size_t>(rows + r)] = cache.length(r) + 1;
  }
  ort::Tensor owned[5];
  std::size_t n = 0;
  owned[n++] = index_feed(spec.token_dtype, {rows, 1}, tokens, narrow_[0], spec.token_input);
  if (!spec.mask_input.empty()) {
    build_mask(cache);
    owned[n++] = index_feed(spec.mask_dtype, {rows, cache.longest() + 1}, mask_, narrow_[1], spec.mask_input);
  }
  if (!spec.position_input.empty())
    owned[n++] = index_feed(spec.position_dtype, {rows, 1}, positions_, narrow_[2], spec.position_input);
  if (!spec.write_indices_input.empty()) owned[n++] = ort::Tensor::view(DataType::kInt64, {rows}, lengths_.data());
  if (!spec.cache_lengths_input.empty())
    owned[n++] = ort::Tensor::view(DataType::kInt64, {rows}, lengths_.data() + rows);
  auto pasts = cache.pasts();
  inputs_.resize(n + pasts.size());
  for (std::size_t i = 0; i < n; ++i) inputs_[i] = &owned[i];
  std::copy(pasts.begin(), pasts.end(), inputs_.begin() + static_cast<std::ptrdiff_t>(n));
  outputs_.resize(decoder_.output_count());
  for (auto& t : outputs_) t = ort::Tensor();
  std::span<ort::Tensor> presents(outputs_.data() + (outputs_.size() - pasts.size()), pasts.size());
  cache.bind_presents(presents);
  StepOutput out;
  out.run_seconds = feed_ == Feed::kBound ? decoder_.run(binding_, inputs_, outputs_, cache.location())
                                          : decoder_.run(inputs_, outputs_);
  cache.commit(presents);
  out.logits = std::move(outputs_[0]);
  if (!spec.hidden_output.empty()) out.hidden = std::move(outputs_[1]);
  return out;
}

}  // namespace ogai::generate
