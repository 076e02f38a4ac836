// A binary ONNX model opened for streaming rewrites: the graph without its initializer payloads
// (a "skeleton" ModelProto small enough to edit), and each initializer's bytes on demand.
//
// The model file is memory-mapped and walked at the wire level; an initializer's TensorProto is
// parsed without its raw_data, whose range in the file (or in its external-data file) is kept.
// data() hands out that range in place, release() drops its pages from memory again, so a rewrite
// touches one tensor at a time. Initializers stored in typed fields (float_data, int32_data, ...)
// are parsed whole; exporters use them for small tensors only. The split into skeleton and
// initializers is the onnx stage's (onnx/model_split.h); this unit adds the payload ranges and
// the on-demand reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "base/dtype.h"
#include "base/file.h"

namespace ogai::quantize {

struct SourceTensor {
  ::onnx::TensorProto meta;  // name, dims, data_type; no raw_data, no external_data
  DataType dtype = DataType::kUndefined;
  std::string external_location;  // empty: the bytes are in the model file
  std::uint64_t offset = 0;       // of raw_data in the model file, or in the external file
  std::uint64_t length = 0;       // bytes
  bool typed = false;             // stored in typed fields of `meta` (converted by data())
  std::int64_t element_count() const;
};

class SourceModel {
 public:
  // Throws ogai::Error naming the file when it is not a binary ModelProto or is truncated.
  explicit SourceModel(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return path_; }
  // The model with graph.initializer empty (everything else as stored).
  ::onnx::ModelProto& skeleton() { return skeleton_; }
  const std::vector<SourceTensor>& initializers() const { return initializers_; }
  // External-data files the initializers reference (relative to the model's directory).
  std::vector<std::string> external_files() const;

  // The tensor's little-endian element bytes; valid until the next data() or release() call.
  // Throws ogai::Error when an external range lies outside its file.
  std::span<const std::uint8_t> data(const SourceTensor& tensor);
  // Returns the pages data() touched to the kernel (memory stays ~one tensor at a time).
  void release();

 private:
  const MappedFile& external(const std::string& location);
  std::filesystem::path path_;
  MappedFile file_;
  ::onnx::ModelProto skeleton_;
  std::vector<SourceTensor> initializers_;
  std::map<std::string, std::unique_ptr<MappedFile>> externals_;
  std::vector<std::uint8_t> typed_bytes_;
  std::span<const std::uint8_t> last_;
};

}  // namespace ogai::quantize
