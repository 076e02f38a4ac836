// Reading NumPy `.npy` files (format versions 1-3, C order, little-endian) into CPU tensors:
// bool, int8/16/32/64, uint8/16/32/64, float16/32/64. Empty shapes such as [1, 2, 0, 8] are fine.
// Throws ogai::Error naming the file on anything else. Reads the whole file: O(file size).
#pragma once

#include <filesystem>

#include "ort/tensor.h"

namespace ogai::workflow {

ort::Tensor read_npy(const std::filesystem::path& path);

}  // namespace ogai::workflow
