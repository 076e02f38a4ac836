// Writing one tensor as a NumPy `.npy` file (format 1.0, C order, little-endian), what
// `ogai preprocess --out` writes for users to compare against their Python pipeline.
// Dtypes: float32 (<f4), float16 (<f2), int64, int32, int8, uint8, bool; bfloat16, which NumPy
// has no type for, is widened to float32 (exactly). The file is created exclusively: an existing
// file is refused (kInvalidArgument naming it), never replaced. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "base/dtype.h"

namespace ogai::cli {

// `data` holds the row-major elements of `shape` in `dtype`.
void write_npy_exclusive(const std::filesystem::path& path, DataType dtype, std::span<const std::int64_t> shape,
                         std::span<const std::uint8_t> data);

}  // namespace ogai::cli
