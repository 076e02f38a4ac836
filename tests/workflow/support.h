// Helpers for the workflow interpreter tests: the conformance fixtures under
// OGAI_SHARED_DIR/conformance/metadata/fixtures, tensor builders and readers.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ogai/error.h"
#include "workflow/interpreter.h"

namespace ogai::workflow::testing {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(OGAI_SHARED_DIR) / "conformance/metadata/fixtures" / name;
}

// One Program per fixture, loaded once per test binary.
const Program& program(const std::string& name);

inline ort::Tensor i64(std::vector<std::int64_t> v, ort::Shape shape) {
  return ort::Tensor::copy_of(std::span<const std::int64_t>(v), std::move(shape));
}
inline ort::Tensor i64(std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return i64(std::move(v), {n});
}
inline ort::Tensor f32(std::vector<float> v, ort::Shape shape) {
  return ort::Tensor::copy_of(std::span<const float>(v), std::move(shape));
}
ort::Tensor boolean(std::vector<bool> v);

std::vector<std::int64_t> ints(const ort::Tensor& t);
std::vector<float> floats(const ort::Tensor& t);

}  // namespace ogai::workflow::testing
