// Writes a model with ~`bytes` of embedded float32 initializers (one MatMul: Y = X · W), for the
// benchmarks that must show reading a graph's interface does not touch its weights.
#pragma once

#include <cstddef>
#include <filesystem>

namespace ogai::bench {

// Creates `path` unless it already exists with the expected size. W is [rows, 4096].
void write_big_model(const std::filesystem::path& path, std::size_t bytes);

}  // namespace ogai::bench
