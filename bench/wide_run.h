// Bare ONNX Runtime runs of a stories260k-style decoder graph (input_ids, attention_mask,
// position_ids, then past_key_values.* [batch, kv_heads, past, head_dim]) at any row count and
// width, no ogai code in the loop: the floor under what a speculative verification run costs.
// One intra-op thread, host tensors, every mask position 1; times are the calling thread's CPU time.
// Used by verify_width_bench and speculation_bound.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ort/tensor.h"

namespace ogai::bench {

struct WideGraph {
  Ort::Session session{nullptr};
  std::vector<std::string> in_names, out_names;
  std::vector<const char*> in_c, out_c;
  std::int64_t pairs = 0, kv_heads = 0, head_dim = 0;
};

// Opens `path` (exits with a message when it is not a stories260k-style graph).
WideGraph open_wide_graph(const std::string& path);

// One run of `rows` rows x `seq` new tokens over `past` positions, every past tensor viewing `kv`
// (at least rows * kv_heads * past * head_dim floats): its thread CPU seconds; `presents` gets the
// run's present outputs.
double wide_run(WideGraph& g, std::int64_t rows, std::int64_t past, std::int64_t seq, std::vector<float>& kv,
                std::vector<ort::Tensor>& presents);

double thread_seconds();
double median(std::vector<double> v);

}  // namespace ogai::bench
