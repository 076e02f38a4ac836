#include <map>
#include <mutex>

#include "ort/memory_info.h"

namespace ogai::ort {

std::string location_name(Location location) {
  return location.host() ? std::string("host") : "cuda:" + std::to_string(location.id);
}

const OrtMemoryInfo* memory_info(Location location) {
  static std::mutex mutex;
  static std::map<int, Ort::MemoryInfo> cuda;  // by device id; never erased (pointers stay valid)
  if (location.host()) {
    static Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeDefault);
    return cpu;
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cuda.find(location.id);
  if (it == cuda.end())
    it = cuda.emplace(location.id, Ort::MemoryInfo("Cuda", OrtDeviceAllocator, location.id, OrtMemTypeDefault)).first;
  return it->second;
}

Location location_of(const OrtMemoryInfo* info) {
  Ort::ConstMemoryInfo m(info);
  if (m.GetDeviceType() != OrtMemoryInfoDeviceType_GPU) return {};
  return {Device::kCuda, m.GetDeviceId()};
}

}  // namespace ogai::ort
