// ogai::ort::Tensor: an ONNX Runtime value (OrtValue) owned by ogai, with its element type and
// shape cached so the hot path never queries ORT for them.
//
// A Tensor either owns its memory (allocate/zeros/copy_of) or is a view over memory the caller
// keeps alive (view). Move-only: copying a tensor's bytes is explicit (copy_of).
// Its bytes live at location(): the factories here make host tensors; device tensors come from
// ort::Memory (memory.h) or from a device-bound run (io_binding.h). Typed access (span) is for
// host tensors only; raw_data() of a device tensor is a device address.
// This header does not include ONNX Runtime's headers; only src/ort/*.cc do.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "ort/location.h"

struct OrtValue;

namespace ogai::ort {

using Shape = std::vector<std::int64_t>;

// Number of elements of a shape; throws ogai::Error on a negative dimension.
std::int64_t element_count(std::span<const std::int64_t> shape);
std::string shape_string(std::span<const std::int64_t> shape);  // "[1, 4, 0, 8]"

class Tensor {
 public:
  Tensor() = default;
  ~Tensor();
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(Tensor&& other) noexcept;
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;

  // CPU tensor owned by ORT's default allocator; contents uninitialized.
  static Tensor allocate(DataType dtype, Shape shape);
  // CPU tensor filled with zero bytes.
  static Tensor zeros(DataType dtype, Shape shape);
  // Non-owning view over `data` (at least element_count(shape) * dtype_size(dtype) bytes), which
  // must outlive the tensor.
  static Tensor view(DataType dtype, Shape shape, void* data);
  // Same over memory at `location` (e.g. a part of a device buffer).
  static Tensor view(DataType dtype, Shape shape, void* data, Location location);
  // Owning CPU copy of `values` with the given shape (sizes must agree).
  template <typename T>
  static Tensor copy_of(std::span<const T> values, Shape shape);
  // Owning CPU copy of another tensor's bytes.
  static Tensor copy_of(const Tensor& other);
  // Takes ownership of an OrtValue produced by ORT (used inside src/ort); reads its location.
  static Tensor adopt(OrtValue* value);
  // An owning tensor of `shape` (no more elements than `owner`'s) over the first bytes of
  // `owner`'s buffer, which it keeps alive: a smaller tensor without an allocation or a copy (the
  // bytes are not moved; laying them out for the new shape is the caller's business). O(1).
  static Tensor narrowed(Tensor&& owner, Shape shape);

  bool empty() const { return value_ == nullptr; }
  DataType dtype() const { return dtype_; }
  Location location() const { return location_; }
  const Shape& shape() const { return shape_; }
  std::int64_t element_count() const;
  std::size_t byte_size() const { return static_cast<std::size_t>(element_count()) * dtype_size(dtype_); }
  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }

  // Typed access; throws ogai::Error if T does not match dtype() or the tensor is not on the host.
  template <typename T>
  std::span<T> span();
  template <typename T>
  std::span<const T> span() const;

  OrtValue* get() const { return value_; }

 private:
  static Tensor copy_bytes(DataType dtype, Shape shape, const void* bytes, std::size_t size);
  void check_type(DataType expected) const;

  OrtValue* value_ = nullptr;
  std::unique_ptr<Tensor> owner_;  // narrowed(): the tensor whose buffer value_ views
  DataType dtype_ = DataType::kUndefined;
  Shape shape_;  // cached at construction
  void* data_ = nullptr;
  Location location_;  // cached at construction
};

// C++ type -> DataType for the types tensors are created from.
// clang-format off
template <typename T> constexpr DataType dtype_of();
template <> constexpr DataType dtype_of<float>() { return DataType::kFloat32; }
template <> constexpr DataType dtype_of<std::int64_t>() { return DataType::kInt64; }
template <> constexpr DataType dtype_of<std::int32_t>() { return DataType::kInt32; }
template <> constexpr DataType dtype_of<std::uint8_t>() { return DataType::kUint8; }
template <> constexpr DataType dtype_of<std::int8_t>() { return DataType::kInt8; }
template <> constexpr DataType dtype_of<bool>() { return DataType::kBool; }
template <> constexpr DataType dtype_of<std::uint16_t>() { return DataType::kFloat16; }  // raw half bits
// clang-format on

template <typename T>
Tensor Tensor::copy_of(std::span<const T> values, Shape shape) {
  return copy_bytes(dtype_of<T>(), std::move(shape), values.data(), values.size_bytes());
}

template <typename T>
std::span<T> Tensor::span() {
  check_type(dtype_of<T>());
  return {static_cast<T*>(data_), static_cast<std::size_t>(element_count())};
}

template <typename T>
std::span<const T> Tensor::span() const {
  check_type(dtype_of<T>());
  return {static_cast<const T*>(data_), static_cast<std::size_t>(element_count())};
}

}  // namespace ogai::ort
