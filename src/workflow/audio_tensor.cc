#include "workflow/audio_tensor.h"

#include <cstring>

#include "base/error.h"
#include "base/half.h"

namespace ogai::workflow {
namespace {

template <typename T>
void narrow_ints(const std::vector<std::int64_t>& src, void* dst) {
  auto* out = static_cast<T*>(dst);
  for (std::size_t i = 0; i < src.size(); ++i) out[i] = static_cast<T>(src[i]);
}

bool integer_target(DataType d) {
  return d == DataType::kInt64 || d == DataType::kInt32 || d == DataType::kInt16 || d == DataType::kInt8 ||
         d == DataType::kUint8 || d == DataType::kBool;
}

bool float_target(DataType d) {
  return d == DataType::kFloat32 || d == DataType::kFloat16 || d == DataType::kBfloat16;
}

}  // namespace

ort::Tensor audio_tensor_as(const media::audio::AudioTensor& t, DataType dtype, const ort::Shape& shape,
                            const std::string& what) {
  if (t.integer ? !integer_target(dtype) : !float_target(dtype))
    fail(ErrorCode::kInvalidPackage, what, "takes {}, but the audio program makes {} data for it", dtype_name(dtype),
         t.integer ? "integer" : "float");
  ort::Tensor out = ort::Tensor::allocate(dtype, shape);
  const std::size_t n = t.integer ? t.i64.size() : t.f32.size();
  OGAI_CHECK(static_cast<std::size_t>(out.element_count()) == n);
  void* dst = out.raw_data();
  switch (dtype) {
    case DataType::kInt64: if (n) std::memcpy(dst, t.i64.data(), n * sizeof(std::int64_t)); break;
    case DataType::kInt32: narrow_ints<std::int32_t>(t.i64, dst); break;
    case DataType::kInt16: narrow_ints<std::int16_t>(t.i64, dst); break;
    case DataType::kInt8: narrow_ints<std::int8_t>(t.i64, dst); break;
    case DataType::kUint8: narrow_ints<std::uint8_t>(t.i64, dst); break;
    case DataType::kBool: {
      auto* b = static_cast<std::uint8_t*>(dst);
      for (std::size_t i = 0; i < n; ++i) b[i] = t.i64[i] != 0 ? 1 : 0;
      break;
    }
    case DataType::kFloat32: if (n) std::memcpy(dst, t.f32.data(), n * sizeof(float)); break;
    default: convert_floats(t.f32.data(), DataType::kFloat32, dst, dtype, n); break;
  }
  return out;
}

}  // namespace ogai::workflow
