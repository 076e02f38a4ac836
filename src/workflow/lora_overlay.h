// The onnx-genai.parameter-overlay@1 computation on the host (the standard's portable fallback,
// `adapters.portable_fallback: true`), and the request's adapter selection.
//
// Selection (adapters.selection): the request passes, per batch row, `segments` int64[B, K]
// (artifact indices, slots past the row's count padded with -1), `counts` int64[B], `scales`
// float32[B, K] (padding 0) and optionally `active` bool[B] (an inactive row runs the base);
// K = max_adapters. lora_rows() reads those tensors strictly (shapes, padding, undeclared
// indices: errors naming the input and row). lora_selection_tensors() builds them from adapter
// names, for callers that name adapters (ogai run --adapters, WorkflowRequest::adapters).
//
// Overlay: x is float32 [B, ..., in] (axis 0 the batch row); for every row r and every (adapter,
// scale) the row selected, y[r] = base + sum scale * factor * B (A x[r]), where base is x[r] when
// the target's input and output widths agree and 0 otherwise (the reference's portable
// semantics: the overlay carries the low-rank update; it does not read the target initializer).
// A is [rank, in], B is [out, rank], factor alpha/rank. Accumulation is in float32 in a fixed
// order, so a row's result does not depend on the other rows of the batch.
// Cost O(B * M * adapters * rank * (in + out)). Pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ort/tensor.h"
#include "workflow/lora_cache.h"

namespace ogai::workflow {

// A request value by name (nullptr: the request has none).
using ValueLookup = std::function<const ort::Tensor*(const std::string& name)>;

struct LoraSelection {
  LoraRows rows;
  std::vector<bool> active;  // one per row
};

LoraSelection lora_rows(const LoraContract& contract, const ValueLookup& lookup, const std::string& what);

// Named rows -> the selection inputs by name (segments, counts, scales; active all true when the
// contract declares it). Throws kInvalidArgument naming `what` for an unknown adapter name or a
// row with more than max_adapters adapters.
std::vector<std::pair<std::string, ort::Tensor>> lora_selection_tensors(const LoraContract& contract, const LoraRows& rows,
                                                                         const std::string& what);

// `ROW;ROW;...` (one per batch row), each `-` or empty (no adapter) or `NAME[:SCALE],...`
// (scale 1 when omitted): "red;-;red:0.5,blue". Throws kInvalidArgument naming `what`.
LoraRows parse_lora_rows(const std::string& spec, const std::string& what);

// y = overlay(x) for the parameter `component`.`initializer`; `out_features` is the target's
// output width (the manifest's), used for rows without adapters.
ort::Tensor apply_overlay(const PreparedRows& rows, const std::string& component, const std::string& initializer,
                          const ort::Tensor& x, std::int64_t out_features, const std::string& what);

}  // namespace ogai::workflow
