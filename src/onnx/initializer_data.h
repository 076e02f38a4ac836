// Reading one initializer's values out of a model file (e.g. a token-embedding table a runtime
// needs on the host), without materialising the rest of the weights.
//
// Binary `.onnx`: the file is memory-mapped and walked like read_graph_info(); the named
// TensorProto's raw_data (or typed float_data / int32_data / int64_data) is copied, or, for
// external data, its `location`/`offset`/`length` range is read from the file beside the model.
// Text-format models are converted first (fixtures are small).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/dtype.h"

namespace ogai::onnx {

struct InitializerData {
  std::string name;
  DataType dtype = DataType::kUndefined;
  std::vector<std::int64_t> dims;
  std::vector<std::uint8_t> bytes;  // little-endian element bytes, dims' product * dtype_size
};

// Throws ogai::Error naming the model and the initializer when it is missing, has an unsupported
// storage, or its external data is out of range.
InitializerData read_initializer_data(const std::filesystem::path& model, const std::string& name);

}  // namespace ogai::onnx
