#include "ort/tensor.h"

#include <cstring>

#include "ort/memory_info.h"
#include "ort/ort_api.h"

namespace ogai::ort {
namespace {

ONNXTensorElementDataType ort_type(DataType dtype) {
  return static_cast<ONNXTensorElementDataType>(static_cast<int>(dtype));
}

}  // namespace

std::int64_t element_count(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) fail(ErrorCode::kInvalidArgument, "tensor shape", "negative dimension in {}", shape_string(shape));
    n *= d;
  }
  return n;
}

std::string shape_string(std::span<const std::int64_t> shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Tensor::~Tensor() {
  if (value_ != nullptr) Ort::GetApi().ReleaseValue(value_);
}

Tensor::Tensor(Tensor&& other) noexcept
    : value_(other.value_),
      owner_(std::move(other.owner_)),
      dtype_(other.dtype_),
      shape_(std::move(other.shape_)),
      data_(other.data_),
      location_(other.location_) {
  other.value_ = nullptr;
  other.data_ = nullptr;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    if (value_ != nullptr) Ort::GetApi().ReleaseValue(value_);
    value_ = other.value_;
    owner_ = std::move(other.owner_);
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    data_ = other.data_;
    location_ = other.location_;
    other.value_ = nullptr;
    other.data_ = nullptr;
  }
  return *this;
}

std::int64_t Tensor::element_count() const { return ort::element_count(shape_); }

Tensor Tensor::allocate(DataType dtype, Shape shape) {
  ort::element_count(shape);  // validates
  return guard_lazy([&] { return "allocate tensor " + shape_string(shape); },
                    [&] {
                      Ort::AllocatorWithDefaultOptions allocator;
                      Ort::Value value =
                          Ort::Value::CreateTensor(allocator, shape.data(), shape.size(), ort_type(dtype));
                      return adopt(value.release());
                    });
}

Tensor Tensor::zeros(DataType dtype, Shape shape) {
  Tensor t = allocate(dtype, std::move(shape));
  if (t.byte_size() > 0) std::memset(t.data_, 0, t.byte_size());
  return t;
}

Tensor Tensor::view(DataType dtype, Shape shape, void* data) { return view(dtype, std::move(shape), data, {}); }

Tensor Tensor::view(DataType dtype, Shape shape, void* data, Location location) {
  static std::uint64_t empty_storage = 0;
  std::size_t bytes = static_cast<std::size_t>(ort::element_count(shape)) * dtype_size(dtype);
  if (bytes == 0) data = &empty_storage;
  return guard_lazy([&] { return "view tensor " + shape_string(shape); },
                    [&] {
                      Ort::Value value = Ort::Value::CreateTensor(memory_info(location), data, bytes, shape.data(),
                                                                  shape.size(), ort_type(dtype));
                      Tensor t;
                      t.location_ = location;
                      t.value_ = value.release();
                      t.dtype_ = dtype;
                      t.shape_ = std::move(shape);
                      t.data_ = data;
                      return t;
                    });
}

Tensor Tensor::copy_bytes(DataType dtype, Shape shape, const void* bytes, std::size_t size) {
  Tensor t = allocate(dtype, std::move(shape));
  if (t.byte_size() != size)
    fail(ErrorCode::kInvalidArgument, "tensor", "{} bytes of data for a {} {} tensor of {} bytes", size,
         dtype_name(dtype), shape_string(t.shape()), t.byte_size());
  if (size > 0) std::memcpy(t.data_, bytes, size);
  return t;
}

Tensor Tensor::copy_of(const Tensor& other) {
  return copy_bytes(other.dtype_, other.shape_, other.data_, other.byte_size());
}

Tensor Tensor::narrowed(Tensor&& owner, Shape shape) {
  const auto elements = ort::element_count(shape);
  if (owner.empty() || elements > owner.element_count())
    fail(ErrorCode::kInternal, "tensor", "cannot narrow a {} tensor to {}", shape_string(owner.shape_),
         shape_string(shape));
  Tensor t = view(owner.dtype_, std::move(shape), owner.data_, owner.location_);
  // The buffer's owner, never a chain: a narrowed tensor's data starts where its owner's does.
  t.owner_ = owner.owner_ ? std::move(owner.owner_) : std::make_unique<Tensor>(std::move(owner));
  return t;
}

Tensor Tensor::adopt(OrtValue* raw) {
  Tensor t;
  t.value_ = raw;
  guard("tensor info", [&] {
    Ort::UnownedValue value(raw);
    if (!value.IsTensor()) fail(ErrorCode::kUnsupported, "tensor", "ONNX Runtime returned a non-tensor value");
    auto info = value.GetTensorTypeAndShapeInfo();
    t.dtype_ = static_cast<DataType>(static_cast<int>(info.GetElementType()));
    t.shape_ = info.GetShape();
    t.data_ = value.GetTensorMutableRawData();
    t.location_ = location_of(value.GetTensorMemoryInfo());
  });
  return t;
}

void Tensor::check_type(DataType expected) const {
  if (!location_.host())
    fail(ErrorCode::kInternal, "tensor", "a {} tensor {} is on {}, not readable on the host", dtype_name(dtype_),
         shape_string(shape_), location_name(location_));
  if (expected != dtype_ && !(expected == DataType::kFloat16 && dtype_ == DataType::kBfloat16))
    fail(ErrorCode::kInvalidArgument, "tensor", "element type is {}, accessed as {}", dtype_name(dtype_),
         dtype_name(expected));
}

}  // namespace ogai::ort
