// A binary ModelProto split at the protobuf wire level, for graph rewrites that leave the weights
// alone (the logits cut, logits_cut.h).
//
// split_model() parses everything but the main graph's initializers with protobuf (nodes, ports,
// attributes: kilobytes) and keeps each initializer as a view of its TensorProto bytes in the
// source, with its name and dims. join_model() serializes an edited skeleton back and appends the
// initializers: verbatim, or, when the source is a model file on disk, each large embedded tensor
// (raw_data of at least `reference_min_bytes`) rewritten as an external-data reference to its own
// bytes in that file. A rewritten model of any size is then kilobytes plus its small tensors,
// never a copy of its weights; tensors already in external data stay references to their files.
// Neither function validates the graph (ONNX Runtime does). Pure; no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <onnx/onnx_pb.h>

namespace ogai::onnx {

struct InitializerBytes {
  std::string name;
  std::vector<std::int64_t> dims;
  std::string_view tensor;  // the TensorProto's serialized bytes, a view into the source
};

struct SplitModel {
  ::onnx::ModelProto skeleton;               // the model with graph.initializer empty
  std::vector<InitializerBytes> initializers;  // in stored order
};

// Throws ogai::Error (kParse) naming `origin` when `bytes` is not a binary ModelProto with a graph.
SplitModel split_model(std::string_view bytes, const std::string& origin);

struct JoinOptions {
  // Non-empty: `bytes`'s own file name (relative to the folder ONNX Runtime resolves external
  // data in). Embedded tensors of at least reference_min_bytes become references into it.
  std::string self_location;
  std::string_view source;  // the bytes split_model() read (offsets are counted from their start)
  std::uint64_t reference_min_bytes = 4096;
};

// The skeleton with `initializers` appended to its graph. Throws ogai::Error (kParse) when the
// skeleton cannot be serialized.
std::string join_model(const ::onnx::ModelProto& skeleton, std::span<const InitializerBytes> initializers,
                       const JoinOptions& options, const std::string& origin);

}  // namespace ogai::onnx
