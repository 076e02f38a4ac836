#include "ort/cuda_provider.h"

#include <dlfcn.h>

#include <algorithm>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <onnxruntime_cxx_api.h>

#include "base/error.h"
#include "ort/session.h"

namespace ogai::ort {
namespace {

std::filesystem::path loaded_runtime_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&OrtGetApiBase), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  std::filesystem::path path = std::filesystem::canonical(info.dli_fname, ec);
  return ec ? std::filesystem::path(info.dli_fname) : path;
}

}  // namespace

CudaSupport cuda_support() {
  CudaSupport s;
  s.library = loaded_runtime_library();
  s.providers = available_providers();
  s.listed = std::find(s.providers.begin(), s.providers.end(), "CUDAExecutionProvider") != s.providers.end();
  std::error_code ec;
  s.provider_library =
      !s.library.empty() && std::filesystem::exists(s.library.parent_path() / "libonnxruntime_providers_cuda.so", ec);
  return s;
}

void fail_cpu_only(const CudaSupport& s) {
  const std::string library = s.library.empty() ? std::string("libonnxruntime.so") : s.library.string();
  const std::string lacks = s.listed ? "ships no libonnxruntime_providers_cuda.so beside it"
                                     : "has no CUDAExecutionProvider";
  fail(ErrorCode::kUnsupported, "execution provider",
       "'cuda' was requested but the ONNX Runtime in use ({}) is CPU-only: it {} (providers: {}). Point "
       "ONNXRUNTIME_ROOT at a GPU release of ONNX Runtime and rebuild (ONNXRUNTIME_ROOT=/path/to/onnxruntime-gpu "
       "OGAI_BUILD_DIR=build-gpu scripts/setup.sh; GPU set-up: docs/gpu.md), or choose --ep cpu",
       library, lacks, fmt::join(s.providers, ", "));
}

void fail_cuda_start(const std::string& origin, const std::string& why) {
  fail(ErrorCode::kRuntime, origin,
       "the CUDA execution provider failed to start: {} (CUDA, cuDNN and the driver must be on the library path: "
       "docs/gpu.md; choose --ep cpu, or allow the CPU fallback)",
       why);
}

}  // namespace ogai::ort
