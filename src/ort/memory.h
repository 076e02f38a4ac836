// Device memory for state that stays where the graph runs: allocating tensors at a Location and
// copying byte ranges between tensors wherever they live.
//
// Copies: both tensors on the host -> one std::memcpy per range (no ONNX Runtime call). Any side
// on a device -> ONNX Runtime's own transfer, OrtApi::CopyTensors (ORT >= 1.23; ogai requires
// the 1.29 C API, so the entry point always exists), all ranges of one call in one CopyTensors
// call over views at the range offsets. CopyTensors uses the data transfer that an execution
// provider registered in the process environment; when none is registered for the device (a
// CUDA provider appended to a session only, whose library was not registered with the
// environment, see Memory::of) it fails. Then, for CUDA, the cudaMemcpy of the CUDA runtime the
// provider already loaded copies each range (logged once, with ORT's reason); without a loaded
// CUDA runtime copy_ranges throws ogai::Error(kUnsupported) naming both locations and ORT's
// message. Device memory is never dereferenced on the host.
// Cost: O(bytes) per copy; a device copy is synchronous (no stream): one ORT call, or one
// cudaMemcpy per range on the fallback.
// Thread safety: copies and allocations are safe from several threads on disjoint tensors.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "ort/tensor.h"

namespace ogai::ort {

class Session;

// `bytes` bytes at src_offset of the source to dst_offset of the destination.
struct ByteRange {
  std::size_t src_offset = 0;
  std::size_t dst_offset = 0;
  std::size_t bytes = 0;
};

enum class CopyPath {
  kAuto,     // memcpy when both tensors are on the host, ONNX Runtime's copy otherwise
  kRuntime,  // always ONNX Runtime's copy (tests of the device path on host tensors)
};

// Copies every range from `src` into `dst` (ranges may not overlap within dst; src and dst may
// be the same tensor when ranges do not overlap each other). Throws ogai::Error(kInternal) when a
// range lies outside either tensor.
void copy_ranges(const Tensor& src, Tensor& dst, std::span<const ByteRange> ranges,
                 CopyPath path = CopyPath::kAuto);

// Where a state's tensors are allocated. Host: ORT's CPU allocator (Tensor::allocate). A device:
// ORT's allocator for that device, obtained from the session that runs there (the session must
// outlive the Memory and every tensor it allocated). Cheap to copy (shared handle); immutable.
class Memory {
 public:
  static Memory host();
  // The memory `session` runs in: the host for the CPU provider (and a CUDA request that fell
  // back to CPU), else its CUDA device. For CUDA it registers the provider library with the
  // environment once so that CopyTensors has a device transfer; if that fails it logs a warning
  // (copies then fail as described above).
  static Memory of(const Session& session);

  Location location() const { return location_; }
  // Uninitialized tensor at location().
  Tensor allocate(DataType dtype, Shape shape) const;
  // Zero-filled tensor at location() (on a device: a copy from a zeroed host buffer).
  Tensor zeros(DataType dtype, Shape shape) const;

 private:
  struct Allocator;
  Location location_;
  std::shared_ptr<Allocator> allocator_;  // null for the host
};

}  // namespace ogai::ort
