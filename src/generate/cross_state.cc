#include "generate/cross_state.h"

#include <cstring>

#include "base/error.h"

namespace ogai::generate {
namespace {

std::string shape_text(const ort::Shape& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

ort::Tensor view_of(const ort::Tensor& t) {
  return ort::Tensor::view(t.dtype(), t.shape(), const_cast<void*>(t.raw_data()));
}

// Row tensors stacked on axis 0: [rows, d1, ...] from [1, d1, ...] each.
ort::Tensor stack(std::span<const CrossStatePtr> rows, std::size_t i, const std::string& name) {
  const ort::Tensor& first = rows[0]->tensors[i];
  ort::Shape shape = first.shape();
  for (const auto& row : rows) {
    const ort::Tensor& t = row->tensors[i];
    if (t.shape() != first.shape() || t.dtype() != first.dtype())
      fail(ErrorCode::kUnsupported, name, "rows of one decode step hold encoder outputs of shapes {} and {}; rows "
           "with different encoder lengths cannot share a run", shape_text(first.shape()), shape_text(t.shape()));
  }
  shape[0] = static_cast<std::int64_t>(rows.size());
  ort::Tensor out = ort::Tensor::allocate(first.dtype(), shape);
  auto* dst = static_cast<std::uint8_t*>(out.raw_data());
  for (const auto& row : rows) {
    const ort::Tensor& t = row->tensors[i];
    std::memcpy(dst, t.raw_data(), t.byte_size());
    dst += t.byte_size();
  }
  return out;
}

}  // namespace

std::vector<ort::Tensor> cross_views(const CrossState& row) {
  std::vector<ort::Tensor> views;
  for (const auto& t : row.tensors) views.push_back(view_of(t));
  return views;
}

const std::vector<ort::Tensor>& CrossBatch::feeds(std::span<const CrossStatePtr> rows,
                                                  const std::vector<std::string>& names) {
  OGAI_CHECK(!rows.empty());
  if (rows.size() == rows_.size() && std::equal(rows.begin(), rows.end(), rows_.begin())) return batched_;
  for (const auto& row : rows)
    if (!row || row->tensors.size() != names.size())
      fail(ErrorCode::kInternal, "decode step", "a row of an encoder-decoder batch has no encoder outputs");
  batched_.clear();
  if (rows.size() == 1) {
    batched_ = cross_views(*rows[0]);
  } else {
    for (std::size_t i = 0; i < names.size(); ++i) batched_.push_back(stack(rows, i, names[i]));
  }
  rows_.assign(rows.begin(), rows.end());
  return batched_;
}

}  // namespace ogai::generate
