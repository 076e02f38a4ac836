// Writes a rewritten model's initializers: small ones inline (raw_data), the rest appended to one
// external-data file beside the model, 64-byte aligned. Every write is checked, so a full disk is
// an ogai::Error naming the file, never a silently short tensor.
#pragma once

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "base/dtype.h"

namespace ogai::quantize {

class DataWriter {
 public:
  // `data_file` is created (replaced) lazily; `location` is the name the TensorProtos reference.
  DataWriter(std::filesystem::path data_file, std::string location);
  ~DataWriter();
  DataWriter(const DataWriter&) = delete;
  DataWriter& operator=(const DataWriter&) = delete;

  // A TensorProto named `name` holding `bytes` (little-endian elements of `dtype`, `dims`).
  // `base` (optional) supplies the other fields of a copied initializer (doc_string, ...).
  ::onnx::TensorProto write(const std::string& name, DataType dtype,
                            const std::vector<std::int64_t>& dims,
                            std::span<const std::uint8_t> bytes,
                            const ::onnx::TensorProto* base = nullptr);
  // Flushes and closes the file; throws when the data did not reach it.
  void finish();
  std::uint64_t bytes_written() const { return total_; }

 private:
  void append(const void* data, std::size_t size);
  std::filesystem::path path_;
  std::string location_;
  std::FILE* file_ = nullptr;
  std::uint64_t offset_ = 0, total_ = 0;
};

}  // namespace ogai::quantize
