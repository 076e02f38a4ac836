// Rewriting one binary ONNX model: the planned MatMuls become com.microsoft MatMulNBits and the
// planned token-embedding Gathers GatherBlockQuantized (uint8 data, the MatMulNBits packing), each
// keeping its node name, inputs A / indices and outputs, so the graph's interface is unchanged.
// Weights stream one at a time from the source (SourceModel) to `<model>.data` beside the output;
// a weight no remaining node reads is dropped, as is a Transpose left without consumers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "quantize/graph_plan.h"
#include "quantize/source_model.h"

namespace ogai::quantize {

struct GraphReport {
  std::string graph;  // the model's path relative to the package
  GraphPlan plan;
  std::uint64_t bytes_before = 0, bytes_after = 0;  // all initializer bytes of the graph
  std::uint64_t weight_bytes_before = 0, weight_bytes_after = 0;  // the rewritten nodes' weights
  bool rewritten = false;  // false: the model was copied unchanged (nothing to quantize)
};

// Called after each initializer with the bytes read so far and in all.
using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// The plan for `source` (its initializers' dtypes and shapes, its nodes).
GraphPlan plan_model(SourceModel& source, const QuantizeOptions& options);

// Writes the rewritten model to `out_model` and its weights to `out_model` + ".data".
// Throws ogai::Error (naming the file) when reading or writing fails.
void quantize_model(SourceModel& source, const QuantizeOptions& options,
                    const std::filesystem::path& out_model, GraphReport& report,
                    const Progress& progress);

}  // namespace ogai::quantize
