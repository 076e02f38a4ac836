// Whether the ONNX Runtime library in use can run the CUDA execution provider, and the errors
// that say why not. Official GPU releases of ONNX Runtime list CUDAExecutionProvider and ship
// libonnxruntime_providers_cuda.so (with libonnxruntime_providers_shared.so) beside
// libonnxruntime.so; a CPU build lacks one or the other (the npm build ogai fetches lists the
// provider but ships neither library), which makes it CPU-only.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ogai::ort {

struct CudaSupport {
  std::filesystem::path library;       // the libonnxruntime.so loaded in this process ("" if unknown)
  std::vector<std::string> providers;  // what it lists (Ort::GetAvailableProviders)
  bool listed = false;                 // CUDAExecutionProvider is among them
  bool provider_library = false;       // libonnxruntime_providers_cuda.so is beside `library`
  bool usable() const { return listed && provider_library; }
};

CudaSupport cuda_support();

// ogai::Error(kUnsupported): the ONNX Runtime in use is CPU-only; names the library, its
// providers, ONNXRUNTIME_ROOT and the GPU set-up (docs/gpu.md).
[[noreturn]] void fail_cpu_only(const CudaSupport& support);
// ogai::Error(kRuntime) at `origin`: the CUDA provider is there but failed to start (`why`).
[[noreturn]] void fail_cuda_start(const std::string& origin, const std::string& why);

}  // namespace ogai::ort
