// Where a tensor's bytes live: host memory, or the memory of one accelerator device.
// A plain value; comparing two says whether a copy between them is a memcpy (both host) or a
// transfer ONNX Runtime must make (memory.h).
#pragma once

#include <string>

namespace ogai::ort {

enum class Device {
  kHost,  // CPU-addressable memory (ORT's CPU allocator, or memory the caller owns)
  kCuda,  // CUDA device memory (not dereferenceable on the host)
};

struct Location {
  Device device = Device::kHost;
  int id = 0;  // device ordinal; 0 for the host
  bool host() const { return device == Device::kHost; }
  bool operator==(const Location&) const = default;
};

// "host", "cuda:0".
std::string location_name(Location location);

}  // namespace ogai::ort
