// ImageProgram::run: executes the validated transforms on one encoded image and packs the
// declared outputs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>

#include "base/error.h"
#include "base/half.h"
#include "media/image/composite.h"
#include "media/image/decode.h"
#include "media/image/hd_transform.h"
#include "media/image/patchify.h"
#include "media/image/program.h"
#include "media/image/target_size.h"
#include "media/image/tile.h"

namespace ogai::media {
namespace {

using Op = ImageProgram::Op;
using Transform = ImageProgram::Transform;

constexpr std::uint64_t kMaxElements = 64ull << 20;  // per output tensor

enum class VKind { kRaster, kPixels, kPatches, kPadded, kInts, kPaddedCoords, kPaddedPixels };

struct Value {
  VKind kind = VKind::kRaster;
  Size original, transformed;  // the decoded image's size; the size after resize
  Raster raster;               // kRaster
  std::vector<std::vector<float>> planes;  // kPixels: per tile [3, H, W] (unless lazy)
  // kPixels, lazy: one tile, `raster` (RGB) with table[c][v] the float each sample value stands for
  // (the rescale / normalize ops applied to the 256 values; patchify reads it without planes).
  bool lazy = false;
  ChannelTable table{};
  std::vector<std::vector<std::uint8_t>> masks;  // dynamic_hd tiles: [edge, edge] validity per tile
  std::shared_ptr<const Raster> decoded;  // what `tile` cuts (it reads the decoded image, not a resize)
  std::uint32_t width = 0, height = 0;
  Patches patches;                  // kPatches, kPadded
  std::uint32_t merge = 1;          // kPatches, kPadded: the patchify's merge size
  std::uint32_t hd_rows = 0, hd_columns = 0;  // hd_transform tiles: the crop grid
  std::uint64_t length = 0;         // kPadded, kPaddedCoords: the padded patch count; kPaddedPixels: tiles
  double fill = 0.0;                // kPadded: the pad transform's value
  std::vector<std::int64_t> ints;   // kInts; kPaddedCoords: the [count, 2] coordinates before padding
  std::vector<std::int64_t> shape;  // kInts
};

Raster resize_raster(const Raster& src, const Transform& t, const ImageLimits& limits, const std::string& what) {
  using M = ImageProgram::ResizeMode;
  Raster converted;
  if (src.channels != 3) converted = to_rgb(src);
  const Raster& in = src.channels == 3 ? src : converted;
  const Size source{in.width, in.height};
  if (t.mode == M::kPixelArea) {
    const Size s = pixel_area_size(source, t.min_pixels, t.max_pixels, static_cast<std::uint32_t>(t.multiple),
                                   limits.max_pixels, what);
    return resize(in, s.width, s.height, t.filter);
  }
  if (t.mode == M::kPatchBudget) {
    const Size s = patch_budget_size(source, t.patch_size, t.max_patches, t.pooling, limits.max_pixels, what);
    return resize(in, s.width, s.height, t.filter);
  }
  const FitMode fit = t.mode == M::kCrop ? FitMode::kCrop : t.mode == M::kPad ? FitMode::kPad : FitMode::kStretch;
  return resize_fit(in, fit, t.filter, t.width, t.height, limits, what);
}

// A raster as pixels, lazily: the RGB raster and an identity channel table.
void to_pixels(Value& v) {
  if (v.kind != VKind::kRaster) return;
  if (v.raster.channels != 3) v.raster = to_rgb(v.raster);
  v.width = v.raster.width, v.height = v.raster.height;
  for (auto& channel : v.table)
    for (std::size_t i = 0; i < 256; ++i) channel[i] = static_cast<float>(i);
  v.planes.clear();
  v.lazy = true;
  v.kind = VKind::kPixels;
}

// Pixels as float planes [3, H, W].
void materialize(Value& v) {
  to_pixels(v);
  if (!v.lazy) return;
  const Raster& rgb = v.raster;
  const std::size_t plane = static_cast<std::size_t>(rgb.width) * rgb.height;
  std::vector<float> chw(plane * 3);
  for (std::size_t i = 0; i < plane; ++i)
    for (std::size_t c = 0; c < 3; ++c) chw[c * plane + i] = v.table[c][rgb.pixels[i * 3 + c]];
  v.planes.clear();
  v.planes.push_back(std::move(chw));
  v.raster = {};
  v.lazy = false;
}

std::size_t tile_count(const Value& v) { return v.lazy ? 1 : v.planes.size(); }

// `tile`: the decoded image cut into tiles (tile.h), each as unscaled float [3, T, T].
void to_tiles(Value& v, const Transform& t, const ImageLimits& limits, const std::string& what) {
  if (t.tiling.mode == TileSpec::Mode::kHdTransform) {  // reads its input (hd_transform.h)
    if (v.raster.channels != 3) v.raster = to_rgb(v.raster);
    HdTiles hd = hd_transform(v.raster, t.tiling.tile_size, t.tiling.max_tiles, t.tiling.hd_filter,
                              t.tiling.canvas_pad_value, t.tiling.thumbnail, limits, what);
    v.width = v.height = t.tiling.tile_size;
    v.transformed = {hd.canvas_width, hd.canvas_height};
    v.hd_rows = hd.rows, v.hd_columns = hd.columns;
    v.planes = std::move(hd.planes);
    v.raster = {};
    v.kind = VKind::kPixels;
    return;
  }
  const Raster& decoded = *v.decoded;
  Raster converted;
  if (decoded.channels != 3) converted = to_rgb(decoded);
  const Tiles tiles = tile_image(decoded.channels == 3 ? decoded : converted, t.tiling, limits, what);
  v.width = v.height = t.tiling.tile_size;
  v.transformed = {tiles.canvas_width, tiles.canvas_height};
  v.planes.clear();
  for (const Raster& tile : tiles.tiles) {
    Value one;
    one.raster = tile;
    one.kind = VKind::kRaster;
    materialize(one);
    v.planes.push_back(std::move(one.planes[0]));
  }
  v.masks = tiles.masks;
  v.raster = {};
  v.kind = VKind::kPixels;
}

// emit_token_count: the soft tokens the image becomes (program.h).
std::int64_t token_count(const Value& v, const Transform& t) {
  if (t.tokens_per_tile) return hd_token_count(v.hd_rows, v.hd_columns, t.tokens_per_tile);
  const std::int64_t per = t.patches_per_token ? t.patches_per_token : static_cast<std::int64_t>(v.merge) * v.merge;
  return v.patches.count / per;
}

Value ints_value(const Value& from, std::vector<std::int64_t> values, std::vector<std::int64_t> shape) {
  Value v;
  v.masks = from.masks;
  v.kind = VKind::kInts;
  v.original = from.original, v.transformed = from.transformed;
  v.ints = std::move(values);
  v.shape = std::move(shape);
  return v;
}

Value validity_mask(const Value& in) {
  if (!in.masks.empty()) {  // dynamic_hd: per tile, per mask cell
    const auto edge = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(in.masks[0].size()))));
    std::vector<std::int64_t> values;
    for (const auto& m : in.masks) values.insert(values.end(), m.begin(), m.end());
    return ints_value(in, std::move(values), {static_cast<std::int64_t>(in.masks.size()), edge, edge});
  }
  if (in.kind == VKind::kPadded || in.kind == VKind::kPaddedPixels) {
    std::vector<std::int64_t> mask(in.length, 0);
    std::fill_n(mask.begin(), in.kind == VKind::kPadded ? in.patches.count : static_cast<std::int64_t>(in.planes.size()), 1);
    return ints_value(in, std::move(mask), {1, static_cast<std::int64_t>(in.length)});
  }
  const std::int64_t n = in.kind == VKind::kPatches ? in.patches.count
                       : in.kind == VKind::kPixels ? static_cast<std::int64_t>(tile_count(in))
                                                   : 1;
  return ints_value(in, std::vector<std::int64_t>(static_cast<std::size_t>(n), 1), {n});
}

// `in[k]` may be moved from when `last[k]` (no later transform or output reads it).
// `keep_decoded`: a grid `tile` op cuts the decoded image, so decode keeps a copy of it.
std::vector<Value> apply(const Transform& t, const std::vector<Value*>& in, const std::vector<bool>& last,
                         std::span<const std::uint8_t> encoded, const ImageLimits& limits, const std::string& what,
                         bool keep_decoded) {
  std::vector<Value> out;
  if (t.op == Op::kDecode) {
    Value v;
    v.raster = decode_image(encoded, what, limits);
    if (t.to_rgb && v.raster.channels != 3) v.raster = to_rgb(v.raster);
    v.original = v.transformed = {v.raster.width, v.raster.height};
    if (keep_decoded) v.decoded = std::make_shared<const Raster>(v.raster);
    out.push_back(std::move(v));
    return out;
  }
  if (t.op == Op::kPad) {
    for (std::size_t k = 0; k < in.size(); ++k) {
      const VKind kind = in[k]->kind;  // read before the value may be moved from
      const std::int64_t count = kind == VKind::kPatches  ? in[k]->patches.count
                                 : kind == VKind::kPixels ? static_cast<std::int64_t>(tile_count(*in[k]))
                                                          : static_cast<std::int64_t>(in[k]->ints.size() / 2);
      if (t.target_length < static_cast<std::uint64_t>(count))
        fail(ErrorCode::kInvalidArgument, what, "{}: the image makes {} {}, more than target_length {}", t.path, count,
             kind == VKind::kPixels ? "tiles" : "patches", t.target_length);
      Value v = last[k] ? std::move(*in[k]) : *in[k];
      if (kind == VKind::kPixels) materialize(v);
      v.length = t.target_length;
      v.fill = t.pad_value;
      v.kind = kind == VKind::kPatches ? VKind::kPadded : kind == VKind::kPixels ? VKind::kPaddedPixels : VKind::kPaddedCoords;
      out.push_back(std::move(v));
    }
    return out;
  }
  const Value& src = *in.at(0);
  switch (t.op) {  // the emit ops read only the input's facts
    case Op::kEmitOriginalSize: out.push_back(ints_value(src, {src.original.height, src.original.width}, {1, 2})); return out;
    case Op::kEmitTransformedSize:
      out.push_back(ints_value(src, {src.transformed.height, src.transformed.width}, {1, 2}));
      return out;
    case Op::kEmitValidityMask: out.push_back(validity_mask(src)); return out;
    case Op::kEmitPatchCoordinates: out.push_back(ints_value(src, src.patches.coords, {src.patches.count, 2})); return out;
    case Op::kEmitGridCoordinates:
      out.push_back(ints_value(src, {src.patches.grid.begin(), src.patches.grid.end()}, {1, 3}));
      return out;
    case Op::kEmitTokenCount: out.push_back(ints_value(src, {token_count(src, t)}, {1})); return out;
    default: break;
  }
  Value v = last[0] ? std::move(*in[0]) : *in[0];
  switch (t.op) {
    case Op::kConvertRgb:
      if (v.raster.channels != 3) v.raster = t.background ? composite_rgb(v.raster, *t.background) : to_rgb(v.raster);
      break;
    case Op::kResize:
      v.raster = resize_raster(v.raster, t, limits, what);
      v.transformed = {v.raster.width, v.raster.height};
      break;
    case Op::kRescale:
      to_pixels(v);
      if (v.lazy)
        for (auto& channel : v.table)
          for (float& x : channel) x *= t.scale;
      for (auto& plane : v.planes)
        for (float& x : plane) x *= t.scale;
      break;
    case Op::kNormalize: {
      to_pixels(v);
      if (v.lazy)
        for (std::size_t c = 0; c < 3; ++c)
          for (float& x : v.table[c]) x = (x - t.mean[c]) / t.std[c];
      const std::size_t plane = static_cast<std::size_t>(v.width) * v.height;
      for (std::size_t c = 0; c < 3; ++c)
        for (auto& chw : v.planes)
          for (std::size_t i = 0; i < plane; ++i) chw[c * plane + i] = (chw[c * plane + i] - t.mean[c]) / t.std[c];
      break;
    }
    case Op::kPatchify: {
      to_pixels(v);
      const PatchSpec spec{t.patch_size, t.temporal, t.merge, t.channels_last, t.temporal_major, t.raster_order, t.xy};
      const std::uint64_t elements = static_cast<std::uint64_t>(v.width) * v.height * 3 * t.temporal * tile_count(v);
      if (elements > kMaxElements)
        fail(ErrorCode::kInvalidArgument, what, "{}: {} patch values exceed the limit of {}", t.path, elements,
             kMaxElements);
      v.patches = {};
      if (v.lazy) {  // one tile, read through the channel table
        PatchSpec reserved = spec;
        reserved.reserve_count = t.reserve_patches;
        v.patches = patchify(v.raster, v.table, reserved, what + " (" + t.path + ")");
        v.raster = {};
        v.lazy = false;
      }
      for (std::size_t tile = 0; tile < v.planes.size(); ++tile) {
        Patches p = patchify(v.planes[tile], v.width, v.height, spec, what + " (" + t.path + ")");
        for (std::size_t k = 0; k < p.coords.size(); k += 2)  // rows count down the stacked tiles
          p.coords[k + (t.xy ? 1 : 0)] += static_cast<std::int64_t>(tile) * p.grid[1];
        v.patches.count += p.count;
        v.patches.feature = p.feature;
        v.patches.grid = {static_cast<std::int64_t>(v.planes.size()), p.grid[1], p.grid[2]};
        v.patches.bytes.insert(v.patches.bytes.end(), p.bytes.begin(), p.bytes.end());
        v.patches.coords.insert(v.patches.coords.end(), p.coords.begin(), p.coords.end());
      }
      v.planes = {};
      v.merge = t.merge;
      v.kind = VKind::kPatches;
      break;
    }
    case Op::kTile: to_tiles(v, t, limits, what); break;
    case Op::kFlatten: break;
    default: break;
  }
  out.push_back(std::move(v));
  return out;
}

// Float values -> the output's dtype.
std::vector<std::uint8_t> pack_floats(const std::vector<float>& values, DataType dtype) {
  std::vector<std::uint8_t> bytes;
  if (dtype == DataType::kFloat32) {
    bytes.resize(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  bytes.resize(values.size() * 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t h = dtype == DataType::kFloat16 ? float_to_half(values[i]) : float_to_bfloat16(values[i]);
    std::memcpy(bytes.data() + i * 2, &h, 2);
  }
  return bytes;
}

template <class T>
void put(std::vector<std::uint8_t>& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

// Integer values -> the output's dtype, each checked to fit.
std::vector<std::uint8_t> pack_ints(const std::vector<std::int64_t>& values, DataType dtype, const std::string& name,
                                    const std::string& what) {
  if (dtype == DataType::kFloat32 || dtype == DataType::kFloat16 || dtype == DataType::kBfloat16)
    return pack_floats(std::vector<float>(values.begin(), values.end()), dtype);
  std::int64_t lo = 0, hi = 0;
  std::size_t width = 0;
  switch (dtype) {
    case DataType::kInt64: lo = INT64_MIN, hi = INT64_MAX, width = 8; break;
    case DataType::kInt32: lo = INT32_MIN, hi = INT32_MAX, width = 4; break;
    case DataType::kInt8: lo = -128, hi = 127, width = 1; break;
    case DataType::kUint8: lo = 0, hi = 255, width = 1; break;
    case DataType::kBool: lo = 0, hi = 1, width = 1; break;
    default: fail(ErrorCode::kInternal, name, "unexpected output dtype");
  }
  std::vector<std::uint8_t> bytes(values.size() * width);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::int64_t v = values[i];
    if (v < lo || v > hi)
      fail(ErrorCode::kInvalidArgument, what, "image output '{}': value {} does not fit its dtype {}", name, v,
           dtype_name(dtype));
    if (width == 8) put<std::int64_t>(bytes, i, v);
    else if (width == 4) put<std::int32_t>(bytes, i, static_cast<std::int32_t>(v));
    else bytes[i] = static_cast<std::uint8_t>(v);
  }
  return bytes;
}

void check_elements(std::uint64_t n, const std::string& name, const std::string& what) {
  if (n > kMaxElements)
    fail(ErrorCode::kInvalidArgument, what, "image output '{}' would hold {} values, over the limit of {}", name, n,
         kMaxElements);
}

ProgramTensor pixels_output(const ImageProgram::Output& o, Value v, const std::string& what) {
  ProgramTensor t{o.name, o.content, o.dtype, {}, {}};
  std::vector<float> values;
  if (v.kind == VKind::kRaster || v.lazy) materialize(v);
  if (v.kind == VKind::kPixels) {  // [tiles, 3, H, W] or [tiles, H, W, 3]
    const std::int64_t h = v.height, w = v.width, n = static_cast<std::int64_t>(v.planes.size());
    t.shape = o.nhwc ? std::vector<std::int64_t>{n, h, w, 3} : std::vector<std::int64_t>{n, 3, h, w};
    const std::size_t plane = static_cast<std::size_t>(h * w);
    values.reserve(plane * 3 * v.planes.size());
    for (const auto& chw : v.planes) {
      if (!o.nhwc) {
        values.insert(values.end(), chw.begin(), chw.end());
        continue;
      }
      for (std::size_t i = 0; i < plane; ++i)
        for (std::size_t c = 0; c < 3; ++c) values.push_back(chw[c * plane + i]);
    }
  } else if (v.kind == VKind::kPatches) {
    t.shape = {v.patches.count, v.patches.feature};
    if (o.dtype == DataType::kFloat32) {
      t.data = std::move(v.patches.bytes);
      return t;
    }
    values.assign(v.patches.values(), v.patches.values() + v.patches.bytes.size() / sizeof(float));
  } else if (v.kind == VKind::kPaddedPixels) {  // [1, L, 3, H, W] or [1, L, H, W, 3]
    const std::int64_t h = v.height, w = v.width, n = static_cast<std::int64_t>(v.length);
    check_elements(v.length * static_cast<std::uint64_t>(h * w * 3), o.name, what);
    t.shape = o.nhwc ? std::vector<std::int64_t>{1, n, h, w, 3} : std::vector<std::int64_t>{1, n, 3, h, w};
    const std::size_t plane = static_cast<std::size_t>(h * w);
    values.assign(static_cast<std::size_t>(n) * plane * 3, static_cast<float>(o.pad_value.value_or(v.fill)));
    for (std::size_t k = 0; k < v.planes.size(); ++k) {
      float* dst = values.data() + k * plane * 3;
      if (!o.nhwc) {
        std::copy(v.planes[k].begin(), v.planes[k].end(), dst);
        continue;
      }
      for (std::size_t i = 0; i < plane; ++i)
        for (std::size_t c = 0; c < 3; ++c) dst[i * 3 + c] = v.planes[k][c * plane + i];
    }
  } else {  // padded: [1, L, feature]
    check_elements(v.length * static_cast<std::uint64_t>(v.patches.feature), o.name, what);
    t.shape = {1, static_cast<std::int64_t>(v.length), v.patches.feature};
    const std::size_t n = v.length * static_cast<std::size_t>(v.patches.feature);
    const auto fill = static_cast<float>(o.pad_value.value_or(v.fill));
    const std::size_t real = static_cast<std::size_t>(v.patches.count * v.patches.feature);
    v.patches.bytes.resize(n * sizeof(float));  // in place when patchify reserved the room
    std::fill(v.patches.values() + real, v.patches.values() + n, fill);
    if (o.dtype == DataType::kFloat32) {
      t.data = std::move(v.patches.bytes);
      return t;
    }
    values.assign(v.patches.values(), v.patches.values() + n);
  }
  t.data = pack_floats(values, o.dtype);
  return t;
}

ProgramTensor ints_output(const ImageProgram::Output& o, const Value& v, const std::string& what) {
  ProgramTensor t{o.name, o.content, o.dtype, {}, {}};
  if (v.kind == VKind::kPaddedCoords) {
    check_elements(v.length * 2, o.name, what);
    const double sentinel = o.pad_value.value_or(-1.0);
    if (sentinel != std::floor(sentinel))
      fail(ErrorCode::kInvalidArgument, what, "image output '{}': pad_value {} is not an integer", o.name, sentinel);
    std::vector<std::int64_t> values(v.length * 2, static_cast<std::int64_t>(sentinel));
    std::copy(v.ints.begin(), v.ints.end(), values.begin());
    t.shape = {1, static_cast<std::int64_t>(v.length), 2};
    t.data = pack_ints(values, o.dtype, o.name, what);
    return t;
  }
  t.shape = v.shape;
  t.data = pack_ints(v.ints, o.dtype, o.name, what);
  return t;
}

}  // namespace

std::vector<ProgramTensor> ImageProgram::run(std::span<const std::uint8_t> encoded, const std::string& what,
                                             const ImageLimits& limits) const {
  std::map<std::string, int> uses;  // readers left per value: a value's last reader may move it
  for (const Transform& t : transforms_)
    for (const auto& name : t.inputs) ++uses[name];
  for (const Output& o : outputs_)
    if (!o.source.empty()) ++uses[o.source];
  std::map<std::string, Value> values;
  const bool keep_decoded = std::any_of(transforms_.begin(), transforms_.end(), [](const Transform& t) {
    return t.op == Op::kTile && t.tiling.mode != TileSpec::Mode::kHdTransform;
  });
  for (const Transform& t : transforms_) {
    std::vector<Value*> in;
    std::vector<bool> last;
    for (const auto& name : t.inputs) {
      in.push_back(&values.at(name));
      last.push_back(--uses[name] == 0);
    }
    auto made = apply(t, in, last, encoded, limits, what, keep_decoded);
    for (std::size_t k = 0; k < made.size(); ++k) values[t.outputs[k]] = std::move(made[k]);
  }
  std::vector<ProgramTensor> out;
  for (const Output& o : outputs_) {
    if (o.source.empty()) continue;  // optional and nothing makes it
    Value& v = values.at(o.source);
    const bool last = --uses[o.source] == 0;
    if (o.content != "pixels") out.push_back(ints_output(o, v, what));
    else out.push_back(pixels_output(o, last ? std::move(v) : v, what));
  }
  return out;
}

}  // namespace ogai::media
