#include "workflow/tensor_ops.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "base/error.h"
#include "base/half.h"

namespace ogai::workflow {
namespace {

template <class W, class F>
void for_each_int(const Tensor& t, const W& what, F&& f) {
  const std::int64_t n = t.element_count();
  const void* p = t.raw_data();
  switch (t.dtype()) {
#define OGAI_CASE(DT, T)                                                                            \
  case DataType::DT:                                                                                \
    for (std::int64_t i = 0; i < n; ++i) f(static_cast<std::int64_t>(static_cast<const T*>(p)[i])); \
    return;
    OGAI_CASE(kInt64, std::int64_t)
    OGAI_CASE(kInt32, std::int32_t)
    OGAI_CASE(kInt16, std::int16_t)
    OGAI_CASE(kInt8, std::int8_t)
    OGAI_CASE(kUint8, std::uint8_t)
    OGAI_CASE(kUint16, std::uint16_t)
    OGAI_CASE(kUint32, std::uint32_t)
    OGAI_CASE(kUint64, std::uint64_t)
    OGAI_CASE(kBool, bool)
#undef OGAI_CASE
    default:
      fail(ErrorCode::kInvalidArgument, what(), "expected an integer or bool tensor, got {}", dtype_name(t.dtype()));
  }
}

struct AxisGeometry {
  std::int64_t outer = 1, extent = 0, inner_bytes = 0;
};

AxisGeometry geometry(const Shape& shape, std::int64_t axis, std::size_t elem) {
  AxisGeometry g;
  g.inner_bytes = static_cast<std::int64_t>(elem);
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(shape.size()); ++i) {
    if (i < axis)
      g.outer *= shape[i];
    else if (i == axis)
      g.extent = shape[i];
    else
      g.inner_bytes *= shape[i];
  }
  return g;
}

void check_axis(const Tensor& t, std::int64_t axis) {
  if (axis < 0 || axis >= static_cast<std::int64_t>(t.shape().size()))
    fail(ErrorCode::kInvalidArgument, "workflow", "axis {} is outside a rank-{} tensor", axis, t.shape().size());
  if (dtype_size(t.dtype()) == 0)
    fail(ErrorCode::kUnsupported, "workflow", "{} tensors cannot be sliced", dtype_name(t.dtype()));
}

template <class T>
void fill_from(std::span<T> out, const std::vector<nlohmann::json>& flat, const std::string& what) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto& v = flat.size() == 1 ? flat[0] : flat[i];
    if constexpr (std::is_same_v<T, bool>) {
      if (v.is_boolean())
        out[i] = v.get<bool>();
      else if (v.is_number_integer())
        out[i] = v.get<std::int64_t>() != 0;
      else
        fail(ErrorCode::kInvalidArgument, what, "{} is not a bool", v.dump());
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v.is_number()) fail(ErrorCode::kInvalidArgument, what, "{} is not a number", v.dump());
      out[i] = static_cast<T>(v.get<double>());
    } else {
      if (!v.is_number_integer() && !v.is_boolean())
        fail(ErrorCode::kInvalidArgument, what, "{} is not an integer", v.dump());
      if (v.is_boolean()) {
        out[i] = v.get<bool>();
        continue;
      }
      const bool neg = v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0;
      if (neg ? v.get<std::int64_t>() < static_cast<std::int64_t>(std::numeric_limits<T>::min())
              : v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        fail(ErrorCode::kInvalidArgument, what, "{} does not fit its integer type", v.dump());
      out[i] = neg ? static_cast<T>(v.get<std::int64_t>()) : static_cast<T>(v.get<std::uint64_t>());
    }
  }
}

void flatten(const nlohmann::json& v, std::vector<nlohmann::json>& out) {
  if (v.is_array())
    for (const auto& e : v) flatten(e, out);
  else
    out.push_back(v);
}

}  // namespace

std::vector<std::int64_t> int_values(const Tensor& t, const std::string& what) {
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(t.element_count()));
  for_each_int(
      t, [&] { return what; }, [&](std::int64_t v) { out.push_back(v); });
  return out;
}

void int_values_into(const Tensor& t, std::vector<std::int64_t>& out, const WhatFn& what) {
  out.clear();
  for_each_int(t, what, [&](std::int64_t v) { out.push_back(v); });
}

std::vector<bool> bool_values(const Tensor& t, const std::string& what) {
  std::vector<bool> out;
  for_each_int(
      t, [&] { return what; }, [&](std::int64_t v) { out.push_back(v != 0); });
  return out;
}

std::int64_t single_int(const Tensor& t, const std::string& what) {
  if (t.shape().size() > 1 || t.element_count() != 1)
    fail(ErrorCode::kInvalidArgument, what, "expected one integer ([] or [1]), got shape {}",
         ort::shape_string(t.shape()));
  return int_values(t, what)[0];
}

Tensor from_json_values(DataType dtype, const Shape& shape, const nlohmann::json& values, const std::string& what) {
  std::vector<nlohmann::json> flat;
  flatten(values, flat);
  const std::int64_t n = ort::element_count(shape);
  if (flat.empty() && n != 0)
    fail(ErrorCode::kInvalidArgument, what, "no values for shape {}", ort::shape_string(shape));
  if (flat.size() != 1 && static_cast<std::int64_t>(flat.size()) != n)
    fail(ErrorCode::kInvalidArgument, what, "{} values do not fill shape {}", flat.size(), ort::shape_string(shape));
  Tensor t = Tensor::allocate(dtype, shape);
  switch (dtype) {
    case DataType::kFloat32:
      fill_from(t.span<float>(), flat, what);
      break;
    case DataType::kInt64:
      fill_from(t.span<std::int64_t>(), flat, what);
      break;
    case DataType::kInt32:
      fill_from(t.span<std::int32_t>(), flat, what);
      break;
    case DataType::kInt8:
      fill_from(t.span<std::int8_t>(), flat, what);
      break;
    case DataType::kUint8:
      fill_from(t.span<std::uint8_t>(), flat, what);
      break;
    case DataType::kBool:
      fill_from(t.span<bool>(), flat, what);
      break;
    case DataType::kFloat16: {
      std::vector<float> tmp(static_cast<std::size_t>(n));
      fill_from(std::span<float>(tmp), flat, what);
      auto out = t.span<std::uint16_t>();
      for (std::size_t i = 0; i < tmp.size(); ++i) out[i] = float_to_half(tmp[i]);
      break;
    }
    default:
      fail(ErrorCode::kUnsupported, what, "{} values cannot be written from JSON", dtype_name(dtype));
  }
  return t;
}

Tensor filled_int64(const Shape& shape, std::int64_t value) {
  Tensor t = Tensor::allocate(DataType::kInt64, shape);
  for (auto& v : t.span<std::int64_t>()) v = value;
  return t;
}

Tensor slice_axis(const Tensor& t, std::int64_t axis, std::int64_t begin, std::int64_t length) {
  check_axis(t, axis);
  const auto g = geometry(t.shape(), axis, dtype_size(t.dtype()));
  if (begin < 0 || length < 0 || begin + length > g.extent)
    fail(ErrorCode::kInvalidArgument, "workflow", "slice [{}, {}) is outside extent {} on axis {}", begin,
         begin + length, g.extent, axis);
  Shape shape = t.shape();
  shape[static_cast<std::size_t>(axis)] = length;
  Tensor out = Tensor::allocate(t.dtype(), shape);
  const auto* src = static_cast<const char*>(t.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  const std::int64_t chunk = length * g.inner_bytes;
  for (std::int64_t o = 0; o < g.outer && chunk > 0; ++o)
    std::memcpy(dst + o * chunk, src + (o * g.extent + begin) * g.inner_bytes, static_cast<std::size_t>(chunk));
  return out;
}

Tensor concat_axis(const Tensor& a, const Tensor& b, std::int64_t axis, const std::string& what) {
  check_axis(a, axis);
  bool same = a.dtype() == b.dtype() && a.shape().size() == b.shape().size();
  for (std::size_t i = 0; same && i < a.shape().size(); ++i)
    same = static_cast<std::int64_t>(i) == axis || a.shape()[i] == b.shape()[i];
  if (!same)
    fail(ErrorCode::kInvalidArgument, what, "cannot append {}{} to {}{} along axis {}", dtype_name(b.dtype()),
         ort::shape_string(b.shape()), dtype_name(a.dtype()), ort::shape_string(a.shape()), axis);
  const auto ga = geometry(a.shape(), axis, dtype_size(a.dtype()));
  const auto gb = geometry(b.shape(), axis, dtype_size(b.dtype()));
  Shape shape = a.shape();
  shape[static_cast<std::size_t>(axis)] += b.shape()[static_cast<std::size_t>(axis)];
  Tensor out = Tensor::allocate(a.dtype(), shape);
  auto* dst = static_cast<char*>(out.raw_data());
  const auto* pa = static_cast<const char*>(a.raw_data());
  const auto* pb = static_cast<const char*>(b.raw_data());
  const std::int64_t ca = ga.extent * ga.inner_bytes, cb = gb.extent * gb.inner_bytes;
  for (std::int64_t o = 0; o < ga.outer; ++o) {
    if (ca) std::memcpy(dst, pa + o * ca, static_cast<std::size_t>(ca));
    dst += ca;
    if (cb) std::memcpy(dst, pb + o * cb, static_cast<std::size_t>(cb));
    dst += cb;
  }
  return out;
}

Tensor restore_rows(const Tensor& old, const Tensor& next, std::int64_t batch_axis, const std::vector<bool>& keep) {
  Tensor out = Tensor::copy_of(next);
  const auto& os = old.shape();
  const auto& ns = next.shape();
  const std::size_t rank = os.size();
  const std::size_t elem = dtype_size(old.dtype());
  if (old.element_count() == 0 || elem == 0) return out;
  std::vector<std::int64_t> idx(rank, 0);
  const auto* src = static_cast<const char*>(old.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (std::int64_t flat = 0; flat < old.element_count(); ++flat) {
    const std::int64_t row = idx[static_cast<std::size_t>(batch_axis)];
    if (row < static_cast<std::int64_t>(keep.size()) && keep[static_cast<std::size_t>(row)]) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < rank; ++d) off = off * ns[d] + idx[d];
      std::memcpy(dst + off * static_cast<std::int64_t>(elem), src + flat * static_cast<std::int64_t>(elem), elem);
    }
    for (std::size_t d = rank; d-- > 0;) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

nlohmann::json values_json(const Tensor& t) {
  nlohmann::json out = nlohmann::json::array();
  const std::int64_t n = t.element_count();
  const void* p = t.raw_data();
  auto put_float = [&](double v) { out.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr)); };
  switch (t.dtype()) {
    case DataType::kFloat32:
      for (std::int64_t i = 0; i < n; ++i) put_float(static_cast<const float*>(p)[i]);
      break;
    case DataType::kFloat64:
      for (std::int64_t i = 0; i < n; ++i) put_float(static_cast<const double*>(p)[i]);
      break;
    case DataType::kFloat16:
      for (std::int64_t i = 0; i < n; ++i) put_float(half_to_float(static_cast<const std::uint16_t*>(p)[i]));
      break;
    case DataType::kBfloat16:
      for (std::int64_t i = 0; i < n; ++i) put_float(bfloat16_to_float(static_cast<const std::uint16_t*>(p)[i]));
      break;
    case DataType::kBool:
      for (std::int64_t i = 0; i < n; ++i) out.push_back(static_cast<const bool*>(p)[i]);
      break;
    case DataType::kUint64:
      for (std::int64_t i = 0; i < n; ++i) out.push_back(static_cast<const std::uint64_t*>(p)[i]);
      break;
    default:
      for (auto v : int_values(t, "output")) out.push_back(v);
  }
  return out;
}

}  // namespace ogai::workflow
