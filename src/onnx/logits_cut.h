// Logits only where they are used: a load-time rewrite of a decoder graph so that a run computes
// the vocabulary head for the last K positions only, K fed per run.
//
// The pattern: the logits output [batch, sequence, vocab] is produced by a head (MatMul, or
// com.microsoft MatMulNBits, whose weights are constant: initializers, Constant nodes, or
// Transpose / Cast / Identity / DequantizeLinear of those), optionally followed by element-wise
// steps that treat every position alike (Identity, Cast, Tanh, Sigmoid, Neg; Add / Sub / Mul /
// Div by a constant broadcast over the last axis: Gemma's softcap), each used only by the next.
// The rewrite feeds the head's input through
//     Slice(hidden, starts = -keep, ends = INT64_MAX, axes = [1])
// where `keep` is a new graph input, int64 [1]: the number of last positions whose logits the run
// computes; 0 (or anything >= the run's positions) computes every position, exactly as before. A
// head computes each position from that position's hidden state alone, so the kept rows are the
// rows the full run computes, bit for bit. The logits output's second dim becomes the symbol
// `ogai_logits_positions`; value_info of the rewritten tensors is dropped.
//
// Anything else (a Gemm over a flattened [batch * sequence, hidden], a head whose weights depend
// on an input, logits another node reads, a fixed sequence dim, ai.onnx opset < 10) is declined
// with the reason, and the graph left as it is. The weights are never read (model_split.h).
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "onnx/model_split.h"

namespace ogai::onnx {

inline constexpr const char* kLogitsKeepInput = "ogai_logits_to_keep";

// Rewrites `model`'s graph in place when the pattern is recognised: returns "", else why not
// (the model untouched). `initializers` are the graph's (split_model()).
std::string rewrite_logits_cut(::onnx::ModelProto& model, std::span<const InitializerBytes> initializers,
                               const std::string& logits_output);

struct LogitsCut {
  std::optional<std::string> model;  // the rewritten ModelProto's bytes; empty when declined
  std::string declined;              // why not, when `model` is empty
};

// The rewrite of the model file at `path` (binary, or text format: converted in memory). A binary
// file's embedded weights become external-data references into that same file, so ONNX Runtime
// loading the result (from bytes, with external data resolved beside `path`) reads them where they
// are. Throws ogai::Error when the file cannot be read or is not a ModelProto.
LogitsCut cut_logits(const std::filesystem::path& path, const std::string& logits_output);

}  // namespace ogai::onnx
