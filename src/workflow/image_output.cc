#include "workflow/image_output.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "base/error.h"
#include "base/half.h"
#include "media/image/png_encode.h"

namespace ogai::workflow {
namespace {

struct Range {
  float lo, hi;
  std::string name;
};

// The reference runtime's allowance for kernels overshooting a bounded activation by ulps.
constexpr float kRelativeTolerance = 1.0e-5f;

Range pixel_range(const metadata::WorkflowOutput& o, const std::string& where) {
  const std::string name = o.role == "video" ? "negative_one_to_one" : o.value_range.value_or("");
  if (name == "zero_to_one") return {0.0f, 1.0f, name};
  if (name == "negative_one_to_one") return {-1.0f, 1.0f, name};
  if (name == "zero_to_255") return {0.0f, 255.0f, name};
  if (name.empty()) fail(ErrorCode::kInvalidPackage, where + ".value_range", "an image output needs a value_range");
  fail(ErrorCode::kInvalidPackage, where + ".value_range", "'{}' is not a v1 value range (zero_to_one, negative_one_to_one, zero_to_255)", name);
}

// Where the pixels of [row, frame, channel, y, x] lie in the tensor.
struct Geometry {
  std::int64_t rows = 0, frames = 1, channels = 0, height = 0, width = 0;
  std::int64_t s_row = 0, s_frame = 0, s_channel = 0, s_y = 0, s_x = 0;
};

bool is_channel_count(std::int64_t n) { return n == 1 || n == 3 || n == 4; }

std::int64_t fixed_dim(const metadata::WorkflowOutput& o, std::size_t axis) {
  const auto& shape = o.contract.shape;
  return shape && axis < shape->size() && (*shape)[axis].is_fixed() ? (*shape)[axis].value : -1;
}

// Axis 1 (channel-first) or the last axis (channel-last): the contract's fixed sizes decide,
// else the tensor's own when only one of the two can be a channel count.
std::size_t channel_axis(const metadata::WorkflowOutput& o, const std::vector<std::int64_t>& shape,
                         const std::string& where) {
  const std::size_t last = shape.size() - 1;
  if (is_channel_count(fixed_dim(o, 1))) return 1;
  if (is_channel_count(fixed_dim(o, last))) return last;
  const bool first_fits = is_channel_count(shape[1]), last_fits = is_channel_count(shape[last]);
  if (first_fits != last_fits) return first_fits ? 1 : last;
  fail(ErrorCode::kInvalidArgument, where,
       "cannot tell the channel axis of {}: the contract fixes neither axis 1 nor the last axis to 1, 3 or 4 channels",
       ort::shape_string(shape));
}

// An `append` emit into `output` that declares an axis other than `frame_axis`.
const metadata::EmitStep* conflicting_append(const std::vector<metadata::Step>& steps, const std::string& output,
                                             std::int64_t frame_axis, std::string& path) {
  for (const auto& step : steps) {
    const metadata::EmitStep* found = nullptr;
    std::visit(
        [&](const auto& body) {
          using T = std::decay_t<decltype(body)>;
          if constexpr (std::is_same_v<T, metadata::EmitStep>) {
            if (body.output == output && body.mode == "append" && body.axis && *body.axis != frame_axis) {
              found = &body;
              path = step.path;
            }
          } else if constexpr (std::is_same_v<T, metadata::SequenceStep>) {
            found = conflicting_append(body.steps, output, frame_axis, path);
          } else if constexpr (std::is_same_v<T, metadata::LoopStep>) {
            found = conflicting_append(body.setup, output, frame_axis, path);
            if (!found) found = conflicting_append(body.steps, output, frame_axis, path);
          } else if constexpr (std::is_same_v<T, metadata::BranchStep>) {
            for (const auto& c : body.cases)
              if (!found) found = conflicting_append(c.body, output, frame_axis, path);
            if (!found) found = conflicting_append(body.default_step, output, frame_axis, path);
          }
        },
        step.body);
    if (found) return found;
  }
  return nullptr;
}

Geometry geometry(const metadata::Workflow& wf, const std::string& name, const metadata::WorkflowOutput& o,
                  const std::vector<std::int64_t>& shape, const std::string& where) {
  const bool video = o.role == "video";
  if (shape.size() != 5 && (video || shape.size() != 4))
    fail(ErrorCode::kInvalidArgument, where, "{} must be rank {} ({}); got {}", video ? "a video" : "an image",
         video ? "5" : "4 or 5", video ? "NCTHW or NTHWC" : "NCHW, NHWC, or one frame of NCTHW / NTHWC",
         ort::shape_string(shape));
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t i = shape.size() - 1; i > 0; --i) strides[i - 1] = strides[i] * shape[i];
  const std::size_t c = channel_axis(o, shape, where);
  Geometry g;
  g.rows = shape[0], g.s_row = strides[0];
  g.channels = shape[c], g.s_channel = strides[c];
  std::vector<std::size_t> rest;  // the axes after the batch that are not channels
  for (std::size_t a = 1; a < shape.size(); ++a)
    if (a != c) rest.push_back(a);
  if (shape.size() == 5) {
    const std::size_t f = rest.front();  // 2 for NCTHW, 1 for NTHWC
    g.frames = shape[f], g.s_frame = strides[f];
    rest.erase(rest.begin());
    if (!video && g.frames != 1)
      fail(ErrorCode::kInvalidArgument, where, "an image output holds one frame; {} has {} along axis {}",
           ort::shape_string(shape), g.frames, f);
    std::string path;
    if (video && conflicting_append(wf.steps, name, static_cast<std::int64_t>(f), path))
      fail(ErrorCode::kUnsupported, path + ".axis",
           "frames of video output '{}' ({}) lie along axis {}; ogai writes frames from that axis only", name,
           ort::shape_string(shape), f);
  }
  g.height = shape[rest[0]], g.s_y = strides[rest[0]];
  g.width = shape[rest[1]], g.s_x = strides[rest[1]];
  if (!is_channel_count(g.channels) || g.height <= 0 || g.width <= 0)
    fail(ErrorCode::kInvalidArgument, where, "{} is not {} of 1, 3 or 4 channels", ort::shape_string(shape),
         video ? "frames" : "an image");
  return g;
}

std::vector<float> as_floats(const ort::Tensor& t, const std::string& where) {
  const auto n = static_cast<std::size_t>(ort::element_count(t.shape()));
  std::vector<float> out(n);
  switch (t.dtype()) {
    case DataType::kFloat32: std::memcpy(out.data(), t.raw_data(), n * sizeof(float)); break;
    case DataType::kFloat16:
    case DataType::kBfloat16:
    case DataType::kFloat64: convert_floats(t.raw_data(), t.dtype(), out.data(), DataType::kFloat32, n); break;
    case DataType::kUint8: {
      const auto* p = static_cast<const std::uint8_t*>(t.raw_data());
      std::transform(p, p + n, out.begin(), [](std::uint8_t v) { return static_cast<float>(v); });
      break;
    }
    default:
      fail(ErrorCode::kInvalidArgument, where, "pixels must be floating point or uint8; got {}", dtype_name(t.dtype()));
  }
  return out;
}

std::string index_string(std::size_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    index[i] = static_cast<std::int64_t>(flat % static_cast<std::size_t>(shape[i]));
    flat /= static_cast<std::size_t>(shape[i]);
  }
  return ort::shape_string(index);
}

// Every value inside [lo - tol, hi + tol]; the first one outside is the error.
void check_range(const std::vector<float>& v, const Range& r, const std::vector<std::int64_t>& shape,
                 const std::string& where) {
  const float tol = kRelativeTolerance * std::max(r.hi - r.lo, 1.0f);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!(v[i] >= r.lo - tol && v[i] <= r.hi + tol))  // NaN fails both
      fail(ErrorCode::kInvalidPackage, where,
           "value {} at {} is outside the output's value range {} [{}, {}]; ogai does not clamp pixels", v[i],
           index_string(i, shape), r.name, r.lo, r.hi);
}

std::uint8_t to_pixel(float v, const Range& r) {
  float n = r.lo == 0.0f && r.hi == 1.0f ? v : r.lo == -1.0f ? (v + 1.0f) * 0.5f : v / 255.0f;
  n = std::clamp(n, 0.0f, 1.0f);
  return static_cast<std::uint8_t>(std::round(n * 255.0f));
}

}  // namespace

bool is_pixel_output(const metadata::WorkflowOutput& o) {
  return (o.role == "image" && o.value_range) || o.role == "video";
}

std::vector<std::vector<media::Raster>> output_rasters(const metadata::Workflow& wf, const std::string& output,
                                                       const ort::Tensor& value) {
  const std::string where = "outputs." + output;
  const auto* o = metadata::find_named(wf.outputs, output);
  if (!o) fail(ErrorCode::kNotFound, where, "the workflow declares no output '{}'", output);
  if (o->role != "image" && o->role != "video")
    fail(ErrorCode::kInvalidArgument, where, "is not an image or video output (role '{}')", o->role);
  const Range range = pixel_range(*o, "pipeline.workflow." + where);
  const auto& shape = value.shape();
  const Geometry g = geometry(wf, output, *o, shape, where);
  const auto values = as_floats(value, where);
  check_range(values, range, shape, where);
  std::vector<std::vector<media::Raster>> rows(static_cast<std::size_t>(g.rows));
  for (std::int64_t r = 0; r < g.rows; ++r)
    for (std::int64_t f = 0; f < g.frames; ++f) {
      auto raster = media::make_raster(static_cast<std::uint32_t>(g.width), static_cast<std::uint32_t>(g.height),
                                       static_cast<std::uint32_t>(g.channels));
      std::uint8_t* out = raster.pixels.data();
      const float* base = values.data() + r * g.s_row + f * g.s_frame;
      for (std::int64_t y = 0; y < g.height; ++y)
        for (std::int64_t x = 0; x < g.width; ++x)
          for (std::int64_t c = 0; c < g.channels; ++c)
            *out++ = to_pixel(base[y * g.s_y + x * g.s_x + c * g.s_channel], range);
      rows[static_cast<std::size_t>(r)].push_back(std::move(raster));
    }
  return rows;
}

std::vector<std::vector<std::uint8_t>> encode_png_output(const metadata::Workflow& wf, const std::string& output,
                                                         const ort::Tensor& value) {
  std::vector<std::vector<std::uint8_t>> pngs;
  for (const auto& frames : output_rasters(wf, output, value))
    for (const auto& raster : frames) pngs.push_back(media::encode_png(raster, "outputs." + output));
  return pngs;
}

}  // namespace ogai::workflow
