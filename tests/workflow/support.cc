#include "support.h"

#include <map>
#include <memory>
#include <mutex>

#include "workflow/tensor_ops.h"

namespace ogai::workflow::testing {

const Program& program(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Program>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[name];
  if (!slot) slot = std::make_unique<Program>(load_program(fixture(name)));
  return *slot;
}

ort::Tensor boolean(std::vector<bool> v) {
  ort::Tensor t = ort::Tensor::allocate(DataType::kBool, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) t.span<bool>()[i] = v[i];
  return t;
}

std::vector<std::int64_t> ints(const ort::Tensor& t) { return int_values(t, "test"); }

std::vector<float> floats(const ort::Tensor& t) {
  auto s = t.span<float>();
  return {s.begin(), s.end()};
}

}  // namespace ogai::workflow::testing
