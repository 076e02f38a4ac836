#include "ort/memory.h"

#include <dlfcn.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "base/log.h"
#include "ort/cuda_provider.h"
#include "ort/memory_info.h"
#include "ort/session_impl.h"

namespace ogai::ort {
namespace {

void check_ranges(const Tensor& src, const Tensor& dst, std::span<const ByteRange> ranges) {
  for (const auto& r : ranges)
    if (r.src_offset + r.bytes > src.byte_size() || r.dst_offset + r.bytes > dst.byte_size())
      fail(ErrorCode::kInternal, "tensor copy", "{} bytes from offset {} of a {}-byte tensor to offset {} of a {}-byte one",
           r.bytes, r.src_offset, src.byte_size(), r.dst_offset, dst.byte_size());
}

// A uint8 view of `bytes` bytes at `offset` of `t`, at t's location.
Tensor byte_view(const Tensor& t, std::size_t offset, std::size_t bytes) {
  auto* base = static_cast<std::uint8_t*>(const_cast<void*>(t.raw_data()));
  return Tensor::view(DataType::kUint8, {static_cast<std::int64_t>(bytes)}, base + offset, t.location());
}

// cudaMemcpy of the CUDA runtime the CUDA provider already loaded (never loads one itself).
using CudaMemcpy = int (*)(void* dst, const void* src, std::size_t bytes, int kind);
CudaMemcpy loaded_cuda_memcpy() {
  static const CudaMemcpy fn = [] {
    for (const char* name : {"libcudart.so.12", "libcudart.so.13", "libcudart.so"})
      if (void* handle = dlopen(name, RTLD_NOW | RTLD_NOLOAD))
        if (void* symbol = dlsym(handle, "cudaMemcpy")) return reinterpret_cast<CudaMemcpy>(symbol);
    return CudaMemcpy{nullptr};
  }();
  return fn;
}

// The fallback when CopyTensors has no transfer for the device: cudaMemcpy per range. False when
// no CUDA runtime is loaded; throws when a copy fails.
bool cuda_runtime_copy(const Tensor& src, Tensor& dst, std::span<const ByteRange> ranges, const std::string& why) {
  CudaMemcpy copy = loaded_cuda_memcpy();
  if (copy == nullptr) return false;
  static std::once_flag once;
  std::call_once(once, [&] { log(LogLevel::kInfo, "device copies use cudaMemcpy (CopyTensors: {})", why); });
  constexpr int kCudaMemcpyDefault = 4;  // direction from the pointers (unified addressing)
  const auto* from = static_cast<const std::uint8_t*>(src.raw_data());
  auto* to = static_cast<std::uint8_t*>(dst.raw_data());
  for (const auto& r : ranges) {
    if (r.bytes == 0) continue;
    const int error = copy(to + r.dst_offset, from + r.src_offset, r.bytes, kCudaMemcpyDefault);
    if (error != 0)
      fail(ErrorCode::kRuntime, "tensor copy " + location_name(src.location()) + " -> " + location_name(dst.location()),
           "cudaMemcpy of {} bytes failed with CUDA error {}", r.bytes, error);
  }
  return true;
}

void runtime_copy(const Tensor& src, Tensor& dst, std::span<const ByteRange> ranges) {
  std::vector<Tensor> views;
  std::vector<const OrtValue*> from;
  std::vector<OrtValue*> to;
  for (const auto& r : ranges) {
    if (r.bytes == 0) continue;
    views.push_back(byte_view(src, r.src_offset, r.bytes));
    from.push_back(views.back().get());
    views.push_back(byte_view(dst, r.dst_offset, r.bytes));
    to.push_back(views.back().get());
  }
  if (from.empty()) return;
  const OrtApi& api = Ort::GetApi();
  OrtStatus* status = api.CopyTensors(environment(), from.data(), to.data(), nullptr, from.size());
  if (status == nullptr) return;
  std::string message = api.GetErrorMessage(status);
  api.ReleaseStatus(status);
  const bool cuda = src.location().device == Device::kCuda || dst.location().device == Device::kCuda;
  if (cuda && cuda_runtime_copy(src, dst, ranges, message)) return;
  fail(ErrorCode::kUnsupported, "tensor copy " + location_name(src.location()) + " -> " + location_name(dst.location()),
       "ONNX Runtime's CopyTensors failed: {} (a device copy needs the execution provider's library registered "
       "with the environment; see docs/gpu.md)", message);
}

// Registers the CUDA provider library with the environment (once) so CopyTensors can reach it.
void register_cuda_transfer() {
  static std::once_flag once;
  std::call_once(once, [] {
    CudaSupport cuda = cuda_support();
    auto library = cuda.library.parent_path() / "libonnxruntime_providers_cuda.so";
    try {
      environment().RegisterExecutionProviderLibrary("ogai_cuda", library.string());
    } catch (const Ort::Exception& e) {
      log(LogLevel::kWarn, "registering {} with the ONNX Runtime environment failed ({}); device copies of KV rows "
          "will fail", library.string(), e.what());
    }
  });
}

}  // namespace

void copy_ranges(const Tensor& src, Tensor& dst, std::span<const ByteRange> ranges, CopyPath path) {
  check_ranges(src, dst, ranges);
  if (path == CopyPath::kRuntime || !src.location().host() || !dst.location().host()) {
    runtime_copy(src, dst, ranges);
    return;
  }
  const auto* from = static_cast<const std::uint8_t*>(src.raw_data());
  auto* to = static_cast<std::uint8_t*>(dst.raw_data());
  for (const auto& r : ranges)
    if (r.bytes > 0) std::memcpy(to + r.dst_offset, from + r.src_offset, r.bytes);
}

struct Memory::Allocator {
  Ort::Allocator allocator{nullptr};
};

Memory Memory::host() { return Memory(); }

Memory Memory::of(const Session& session) {
  Memory m;
  m.location_ = session.impl().device;
  if (m.location_.host()) return m;
  register_cuda_transfer();
  m.allocator_ = std::make_shared<Allocator>();
  guard(session.origin(), [&] {
    m.allocator_->allocator = Ort::Allocator(session.impl().session, memory_info(m.location_));
  });
  return m;
}

Tensor Memory::allocate(DataType dtype, Shape shape) const {
  if (!allocator_) return Tensor::allocate(dtype, std::move(shape));
  element_count(shape);  // validates
  return guard("allocate " + location_name(location_) + " tensor " + shape_string(shape), [&] {
    Ort::Value value = Ort::Value::CreateTensor(allocator_->allocator, shape.data(), shape.size(),
                                                static_cast<ONNXTensorElementDataType>(static_cast<int>(dtype)));
    return Tensor::adopt(value.release());
  });
}

Tensor Memory::zeros(DataType dtype, Shape shape) const {
  if (!allocator_) return Tensor::zeros(dtype, std::move(shape));
  Tensor t = allocate(dtype, shape);
  Tensor zero = Tensor::zeros(dtype, std::move(shape));
  const ByteRange all{0, 0, t.byte_size()};
  copy_ranges(zero, t, {&all, 1});
  return t;
}

}  // namespace ogai::ort
