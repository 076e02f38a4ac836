// Which decoder graph of an Optimum / onnx-community folder runs: transformers.js's dtype
// variants (internal to the importer; optimum_import.h is the public side).
//
// transformers.js names a dtype's graph by a file-name suffix (fp32 "", fp16 "_fp16", q8
// "_quantized", int8 "_int8", uint8 "_uint8", q4 "_q4", q4f16 "_q4f16", bnb4 "_bnb4") and picks
// the dtype from its `dtype` option, else config.json's `transformers.js_config.dtype`, else fp32
// (its default on CPU). find_optimum_graph() does the same over the graph names an export holds,
// in this order: model{suffix}.onnx (the single-graph export transformers.js runs),
// decoder_model_merged{suffix}.onnx (Optimum's merged decoder, importer/cache_branch.h),
// decoder_with_past_model{suffix}.onnx (the split export's with-past graph, which prefills from an
// empty cache), each under onnx/ or at the folder's top.
// A dtype asked for (the option) must exist: kNotFound lists the dtypes the folder holds. The
// default one (config or fp32) falls back, when absent, to the first dtype present in the order
// above; the result says so (`fallback`), and the importer writes it in the document's header.
// An unknown dtype name is kInvalidArgument naming the known ones. Thread safety: pure functions.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ogai::importer {

struct OptimumGraph {
  std::filesystem::path path;  // relative to the folder ("onnx/model_q4.onnx")
  std::string dtype;           // transformers.js's name: fp32, fp16, q8, ...
  std::string fallback;        // non-empty: why the default dtype's graph was not the one found
};

// The dtypes transformers.js knows, in fallback order (fp32 first).
const std::vector<std::string>& optimum_dtypes();

// The graph for `dtype` (empty: the default), or nullopt when the folder holds no decoder graph
// of any dtype. Throws as described above.
std::optional<OptimumGraph> find_optimum_graph(const std::filesystem::path& dir, const std::string& dtype);

// Every candidate graph present (for the header's "not used" notes), relative to the folder.
std::vector<std::filesystem::path> optimum_graphs_present(const std::filesystem::path& dir);

}  // namespace ogai::importer
