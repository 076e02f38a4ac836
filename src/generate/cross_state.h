// CrossState: the read-only decoder inputs one request row's encoder produced once (Whisper's
// cross-attention keys and values per layer; encoder hidden states), host tensors of batch 1
// ([1, heads, encoder_len, head_dim] for cross KV), in the order of DecoderSpec::encoder_inputs.
// Immutable once made and shared (a sequence, its state copies and the batch hold the same one).
//
// CrossBatch builds the batched feeds of one decode step: row r's tensors stacked along axis 0
// ([rows, ...]) in row order. It keeps the rows it was last given (holding them alive, so an
// address never stands for another row) and rebuilds only when the rows or their order change;
// one row is fed as a view of its own tensors (no copy). Rows whose tensors differ in shape
// cannot share a run: refused naming the input and both shapes. Not thread-safe (one per engine).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ort/tensor.h"

namespace ogai::generate {

struct CrossState {
  std::vector<ort::Tensor> tensors;  // one per DecoderSpec::encoder_inputs, each [1, ...] on the host
};
using CrossStatePtr = std::shared_ptr<const CrossState>;

// Views of one row's tensors, to feed as inputs (ONNX Runtime never writes inputs).
std::vector<ort::Tensor> cross_views(const CrossState& row);

class CrossBatch {
 public:
  // The feeds for `rows` (each non-null, all with `names.size()` tensors), one per name.
  const std::vector<ort::Tensor>& feeds(std::span<const CrossStatePtr> rows, const std::vector<std::string>& names);

 private:
  std::vector<CrossStatePtr> rows_;
  std::vector<ort::Tensor> batched_;
};

}  // namespace ogai::generate
