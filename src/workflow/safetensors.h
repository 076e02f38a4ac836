// A bounded, validated reader of the safetensors format (an 8-byte little-endian header length,
// a JSON header {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__"?: {str: str}},
// then the tensor bytes). It maps the file read-only and checks, before any tensor is read:
//   - the file is at least 8 bytes and at most `max_file_bytes`;
//   - the header length is at most `max_header_bytes` and lies inside the file;
//   - the header is a JSON object (nesting bounded, base/json_parse.h) of at most `max_tensors`
//     entries, each with exactly dtype / shape / data_offsets, a known dtype, non-negative dims,
//     an element count that does not overflow, and `end - begin == elements * dtype size`;
//   - the tensors tile the data section exactly: no overlap, no gap, nothing after the last one.
// Every error is ogai::Error (kParse) naming the file and, where there is one, the tensor.
// It does not convert integers, sub-byte or float8 tensors to float (floats() refuses them).
// Costs: O(header) at open; O(elements) per floats(). The object owns its map; const methods
// are thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/file.h"

namespace ogai::workflow {

struct SafetensorsLimits {
  std::uint64_t max_file_bytes = 4ull << 30;     // 4 GiB: far above any LoRA adapter
  std::uint64_t max_header_bytes = 100ull << 20; // the format's own ceiling (100 MB)
  std::size_t max_tensors = 65536;
};

struct SafetensorsEntry {
  DataType dtype = DataType::kUndefined;
  std::string dtype_name;            // as written ("F32", "BF16", ...)
  std::vector<std::int64_t> shape;   // row-major dims
  std::uint64_t begin = 0, end = 0;  // byte offsets inside the data section
};

class SafetensorsFile {
 public:
  static SafetensorsFile open(const std::filesystem::path& path, const SafetensorsLimits& limits = {});

  const std::filesystem::path& path() const { return file_.path(); }
  const std::map<std::string, SafetensorsEntry>& entries() const { return entries_; }
  // nullptr when the file has no tensor of that name.
  const SafetensorsEntry* find(const std::string& name) const;
  // The tensor's elements widened to float32 (F32, F16, BF16, F64 only; others throw naming it).
  std::vector<float> floats(const std::string& name) const;

 private:
  explicit SafetensorsFile(MappedFile file) : file_(std::move(file)) {}
  MappedFile file_;
  std::uint64_t data_start_ = 0;
  std::map<std::string, SafetensorsEntry> entries_;
};

}  // namespace ogai::workflow
