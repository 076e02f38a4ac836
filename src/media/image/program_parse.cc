// ImageProgram::parse: the document's preprocessing.image object -> validated transforms and
// outputs, with the kind of every named value checked along the dataflow.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "base/error.h"
#include "media/image/program.h"

namespace ogai::media {
namespace {

using Json = nlohmann::json;
using Op = ImageProgram::Op;
using Kind = ImageProgram::Kind;
using Transform = ImageProgram::Transform;

constexpr std::size_t kMaxTransforms = 64, kMaxOutputs = 64;

// Kinds of named values at parse time (finer than ImageProgram::Kind for the integer tensors).
enum class VKind {
  kRaster, kPixels, kPatches, kPadded, kPaddedPixels, kOriginal, kTransformed, kMask, kCoords, kPaddedCoords, kGrid,
  kTokenCount,
};

[[noreturn]] void bad(const std::string& path, const std::string& message) {
  fail(ErrorCode::kInvalidPackage, path, "{}", message);
}

const Json* field(const Json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

std::uint64_t uint_field(const Json& j, const char* key, const std::string& path, std::optional<std::uint64_t> fallback,
                         std::uint64_t max = 1ull << 31) {
  const Json* v = field(j, key);
  if (!v) {
    if (!fallback) bad(path + "." + key, "is required");
    return *fallback;
  }
  // YAML documents give signed integers, JSON ones unsigned: either, if positive.
  if (!v->is_number_integer() || v->get<std::int64_t>() <= 0 || v->get<std::uint64_t>() > max)
    bad(path + "." + key, fmt::format("must be an integer in 1..{}, got {}", max, v->dump()));
  return v->get<std::uint64_t>();
}

double number_field(const Json& j, const char* key, const std::string& path, std::optional<double> fallback) {
  const Json* v = field(j, key);
  if (!v) {
    if (!fallback) bad(path + "." + key, "is required");
    return *fallback;
  }
  if (!v->is_number() || !std::isfinite(v->get<double>()))
    bad(path + "." + key, fmt::format("must be a finite number, got {}", v->dump()));
  return v->get<double>();
}

std::string string_field(const Json& j, const char* key, const std::string& path, const char* fallback) {
  const Json* v = field(j, key);
  if (!v) return fallback;
  if (!v->is_string()) bad(path + "." + key, fmt::format("must be a string, got {}", v->dump()));
  return v->get<std::string>();
}

bool bool_field(const Json& j, const char* key, const std::string& path, bool fallback) {
  const Json* v = field(j, key);
  if (!v) return fallback;
  if (!v->is_boolean()) bad(path + "." + key, fmt::format("must be true or false, got {}", v->dump()));
  return v->get<bool>();
}

// One of `choices` (name -> value); else an error listing them.
template <class T>
T choice(const std::string& value, const std::vector<std::pair<const char*, T>>& choices, const std::string& path) {
  std::string names;
  for (const auto& [name, v] : choices) {
    if (value == name) return v;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  bad(path, fmt::format("'{}' is not one of {}", value, names));
}

std::vector<std::string> names_field(const Json& j, const char* key, const std::string& path) {
  std::vector<std::string> names;
  const Json* v = field(j, key);
  if (!v) return names;
  if (!v->is_array()) bad(path + "." + key, "must be a list of value names");
  for (const auto& n : *v) {
    if (!n.is_string() || n.get<std::string>().empty()) bad(path + "." + key, "must hold non-empty strings");
    names.push_back(n.get<std::string>());
  }
  return names;
}

void channel_values(const Json& j, const char* key, const std::string& path, float out[3], bool positive) {
  const Json* v = field(j, key);
  if (!v || !v->is_array() || v->size() != 3) bad(path + "." + key, "must list 3 numbers (R, G, B)");
  for (std::size_t c = 0; c < 3; ++c) {
    const auto& x = (*v)[c];
    if (!x.is_number() || !std::isfinite(x.get<double>()) || (positive && x.get<double>() <= 0))
      bad(path + "." + key, fmt::format("value {} must be a finite{} number, got {}", c, positive ? " positive" : "",
                                        x.dump()));
    out[c] = x.get<float>();
  }
}

void parse_resize(const Json& j, Transform& t) {
  using M = ImageProgram::ResizeMode;
  t.mode = choice<M>(string_field(j, "mode", t.path, "stretch"),
                     {{"stretch", M::kStretch}, {"fixed", M::kStretch}, {"fixed_size", M::kStretch},
                      {"crop", M::kCrop}, {"shortest_edge", M::kCrop}, {"shortest_edge_center_crop", M::kCrop},
                      {"pad", M::kPad}, {"longest_edge_pad", M::kPad}, {"pixel_area", M::kPixelArea},
                      {"aspect_ratio_patch_budget", M::kPatchBudget}},
                     t.path + ".mode");
  const std::string interp = string_field(j, "interpolation", t.path, "bicubic");
  const auto filter = parse_resize_filter(interp);
  if (!filter || *filter == ResizeFilter::kBox || *filter == ResizeFilter::kHamming)
    bad(t.path + ".interpolation", fmt::format("'{}' is not one of nearest, bilinear, bicubic, lanczos", interp));
  t.filter = *filter;
  if (t.mode == M::kPixelArea) {
    t.min_pixels = uint_field(j, "min_pixels", t.path, std::nullopt, 1ull << 40);
    t.max_pixels = uint_field(j, "max_pixels", t.path, std::nullopt, 1ull << 40);
    t.multiple = uint_field(j, "size_multiple", t.path, std::nullopt, 1u << 16);
    if (t.min_pixels > t.max_pixels) bad(t.path, "pixel_area needs min_pixels <= max_pixels");
  } else if (t.mode == M::kPatchBudget) {
    t.patch_size = static_cast<std::uint32_t>(uint_field(j, "patch_size", t.path, std::nullopt, 1u << 16));
    t.max_patches = uint_field(j, "max_patches", t.path, std::nullopt, 1u << 24);
    t.pooling = uint_field(j, "pooling_kernel_size", t.path, std::nullopt, 1u << 8);
  }
  const bool dynamic = t.mode == M::kPixelArea || t.mode == M::kPatchBudget;
  const Json* size = field(j, "size");
  if (dynamic) {
    if (size) bad(t.path + ".size", "a pixel_area or aspect_ratio_patch_budget resize computes its size; drop `size`");
    return;
  }
  if (!size) bad(t.path + ".size", "is required for a stretch, crop or pad resize");
  if (size->is_number_integer()) {
    t.width = t.height = static_cast<std::uint32_t>(uint_field(j, "size", t.path, std::nullopt, 1u << 16));
  } else if (size->is_object()) {
    t.width = static_cast<std::uint32_t>(uint_field(*size, "width", t.path + ".size", std::nullopt, 1u << 16));
    t.height = static_cast<std::uint32_t>(uint_field(*size, "height", t.path + ".size", std::nullopt, 1u << 16));
  } else {
    bad(t.path + ".size", fmt::format("must be an edge length or {{width, height}}, got {}", size->dump()));
  }
}

void parse_patchify(const Json& j, Transform& t) {
  t.patch_size = static_cast<std::uint32_t>(uint_field(j, "patch_size", t.path, std::nullopt, 1u << 12));
  t.temporal = static_cast<std::uint32_t>(uint_field(j, "temporal_patch_size", t.path, 1, 64));
  t.merge = static_cast<std::uint32_t>(uint_field(j, "merge_size", t.path, 1, 64));
  t.channels_last = choice<bool>(string_field(j, "channel_order", t.path, "channels_first"),
                                 {{"channels_first", false}, {"chw", false}, {"channels_last", true}, {"hwc", true}},
                                 t.path + ".channel_order");
  t.temporal_major = choice<bool>(string_field(j, "temporal_order", t.path, "channel_major"),
                                  {{"channel_major", false}, {"cthw", false}, {"temporal_major", true}, {"tchw", true}},
                                  t.path + ".temporal_order");
  t.raster_order = choice<bool>(string_field(j, "patch_order", t.path, "merge_groups"),
                                {{"merge_groups", false}, {"merge_blocks", false}, {"raster", true}, {"row_major", true}},
                                t.path + ".patch_order");
  t.xy = choice<bool>(string_field(j, "coordinate_order", t.path, "yx"), {{"yx", false}, {"xy", true}},
                      t.path + ".coordinate_order");
}

void parse_tile(const Json& j, Transform& t) {
  TileSpec& s = t.tiling;
  s.tile_size = static_cast<std::uint32_t>(uint_field(j, "tile_size", t.path, std::nullopt, 1u << 14));
  s.max_tiles = static_cast<std::uint32_t>(uint_field(j, "max_tiles", t.path, 6, 4096));
  s.mode = choice<TileSpec::Mode>(string_field(j, "mode", t.path, "dynamic_anyres"),
                                  {{"dynamic_anyres", TileSpec::Mode::kDynamicAnyres},
                                   {"fixed_grid", TileSpec::Mode::kFixedGrid},
                                   {"dynamic_hd", TileSpec::Mode::kDynamicHd},
                                   {"hd_transform", TileSpec::Mode::kHdTransform}},
                                  t.path + ".mode");
  s.thumbnail = choice<TileSpec::Thumbnail>(string_field(j, "thumbnail_order", t.path, "none"),
                                            {{"none", TileSpec::Thumbnail::kNone},
                                             {"prepend", TileSpec::Thumbnail::kPrepend},
                                             {"append", TileSpec::Thumbnail::kAppend}},
                                            t.path + ".thumbnail_order");
  const bool include = bool_field(j, "include_thumbnail", t.path, false);
  if (include != (s.thumbnail != TileSpec::Thumbnail::kNone))
    bad(t.path + ".include_thumbnail", "must be true exactly when thumbnail_order is prepend or append");
  if (s.mode == TileSpec::Mode::kDynamicHd) {
    s.mask_patch_size = static_cast<std::uint32_t>(uint_field(j, "mask_patch_size", t.path, std::nullopt, 1u << 14));
    if (s.tile_size % s.mask_patch_size != 0) bad(t.path + ".mask_patch_size", "must divide tile_size");
    const double pad = number_field(j, "canvas_pad_value", t.path, std::nullopt);
    if (pad != std::floor(pad) || pad < 0 || pad > 255) bad(t.path + ".canvas_pad_value", "must be an integer in 0..255");
    s.canvas_pad_value = static_cast<std::uint8_t>(pad);
    const auto f = parse_resize_filter(string_field(j, "thumbnail_interpolation", t.path, "bicubic"));
    if (!f) bad(t.path + ".thumbnail_interpolation", "is not one of nearest, bilinear, bicubic, lanczos");
    s.thumbnail_filter = *f;
  }
  if (s.mode == TileSpec::Mode::kHdTransform) {  // Phi-3-V (hd_transform.h)
    const double pad = number_field(j, "canvas_pad_value", t.path, 255.0);
    if (pad != std::floor(pad) || pad < 0 || pad > 255) bad(t.path + ".canvas_pad_value", "must be an integer in 0..255");
    s.canvas_pad_value = static_cast<std::uint8_t>(pad);
    const std::string interp = string_field(j, "interpolation", t.path, "bilinear");
    const auto f = parse_resize_filter(interp);
    if (!f) bad(t.path + ".interpolation", fmt::format("'{}' is not one of nearest, bilinear, bicubic, lanczos", interp));
    s.hd_filter = *f;
  }
}

void parse_token_count(const Json& j, Transform& t) {
  const bool per_patch = field(j, "patches_per_token") != nullptr, per_tile = field(j, "tokens_per_tile") != nullptr;
  if (per_patch && per_tile) bad(t.path, "give patches_per_token or tokens_per_tile, not both");
  if (per_patch) t.patches_per_token = static_cast<std::uint32_t>(uint_field(j, "patches_per_token", t.path, 1, 1u << 16));
  if (per_tile) {
    t.tokens_per_tile = static_cast<std::uint32_t>(uint_field(j, "tokens_per_tile", t.path, 1, 1u << 20));
    const auto side = static_cast<std::uint32_t>(std::llround(std::sqrt(static_cast<double>(t.tokens_per_tile))));
    if (side * side != t.tokens_per_tile)
      bad(t.path + ".tokens_per_tile", fmt::format("must be a square (a tile's token grid), got {}", t.tokens_per_tile));
  }
}

Transform parse_transform(const Json& j, const std::string& path) {
  if (!j.is_object()) bad(path, "must be a mapping with an `op`");
  Transform t;
  t.path = path;
  const std::string op = string_field(j, "op", path, "");
  t.inputs = names_field(j, "inputs", path);
  t.outputs = names_field(j, "outputs", path);
  if (op == "decode" || op == "decode_rgb") {
    t.op = Op::kDecode;
    t.to_rgb = op == "decode_rgb";
  } else if (op == "convert_rgb") {
    t.op = Op::kConvertRgb;
    if (field(j, "background")) {
      float bg[3];
      channel_values(j, "background", path, bg, false);
      std::array<std::uint8_t, 3> rgb{};
      for (std::size_t c = 0; c < 3; ++c) {
        if (bg[c] != std::floor(bg[c]) || bg[c] < 0 || bg[c] > 255)
          bad(path + ".background", "must list 3 integers in 0..255 (R, G, B)");
        rgb[c] = static_cast<std::uint8_t>(bg[c]);
      }
      t.background = rgb;
    }
  } else if (op == "resize") {
    t.op = Op::kResize;
    parse_resize(j, t);
  } else if (op == "rescale") {
    t.op = Op::kRescale;
    t.scale = static_cast<float>(number_field(j, "scale", path, std::nullopt));
  } else if (op == "normalize") {
    t.op = Op::kNormalize;
    channel_values(j, "mean", path, t.mean, false);
    channel_values(j, "std", path, t.std, true);
  } else if (op == "patchify") {
    t.op = Op::kPatchify;
    parse_patchify(j, t);
  } else if (op == "flatten") {
    t.op = Op::kFlatten;
  } else if (op == "pad") {
    t.op = Op::kPad;
    t.target_length = uint_field(j, "target_length", path, std::nullopt, 1u << 24);
    t.pad_value = number_field(j, "pad_value", path, 0.0);
  } else if (op == "emit_original_size") {
    t.op = Op::kEmitOriginalSize;
  } else if (op == "emit_transformed_size") {
    t.op = Op::kEmitTransformedSize;
  } else if (op == "emit_validity_mask") {
    t.op = Op::kEmitValidityMask;
  } else if (op == "emit_patch_coordinates") {
    t.op = Op::kEmitPatchCoordinates;
  } else if (op == "emit_grid_coordinates") {
    t.op = Op::kEmitGridCoordinates;
  } else if (op == "emit_token_count") {
    t.op = Op::kEmitTokenCount;
    parse_token_count(j, t);
  } else if (op == "tile") {
    t.op = Op::kTile;
    parse_tile(j, t);
  } else {
    bad(path + ".op", fmt::format("unknown image op '{}'", op));
  }
  return t;
}

DataType parse_dtype(const std::string& name, const std::string& path) {
  return choice<DataType>(name,
                          {{"float32", DataType::kFloat32}, {"fp32", DataType::kFloat32}, {"float16", DataType::kFloat16},
                           {"fp16", DataType::kFloat16}, {"half", DataType::kFloat16}, {"bfloat16", DataType::kBfloat16},
                           {"bf16", DataType::kBfloat16}, {"int64", DataType::kInt64}, {"int32", DataType::kInt32},
                           {"int8", DataType::kInt8}, {"uint8", DataType::kUint8}, {"bool", DataType::kBool}},
                          path);
}

ImageProgram::Output parse_output(const Json& j, const std::string& path) {
  if (!j.is_object()) bad(path, "must be a mapping with name, content and dtype");
  ImageProgram::Output o;
  o.path = path;
  o.name = string_field(j, "name", path, "");
  if (o.name.empty()) bad(path + ".name", "is required");
  o.content = string_field(j, "content", path, "");
  choice<int>(o.content,
              {{"pixels", 0}, {"grid_dimensions", 0}, {"patch_coordinates", 0}, {"original_size", 0},
               {"transformed_size", 0}, {"validity_mask", 0}, {"token_count", 0}},
              path + ".content");
  o.dtype = parse_dtype(string_field(j, "dtype", path, ""), path + ".dtype");
  if (o.content == "pixels" && o.dtype != DataType::kFloat32 && o.dtype != DataType::kFloat16 &&
      o.dtype != DataType::kBfloat16)
    bad(path + ".dtype", "a pixels output must be float32, float16 or bfloat16");
  o.source = string_field(j, "source", path, "");
  if (field(j, "pad_value")) o.pad_value = number_field(j, "pad_value", path, 0.0);
  o.optional = bool_field(j, "optional", path, false);
  if (const Json* c = field(j, "contract")) {
    if (const Json* d = field(*c, "dtype"); d && d->is_string() && parse_dtype(d->get<std::string>(), path) != o.dtype)
      bad(path + ".contract.dtype", fmt::format("{} disagrees with the output's dtype", d->dump()));
    if (const Json* s = field(*c, "shape"); s && s->is_array() && s->size() == 4)
      o.nhwc = (*s)[3] == 3 && (*s)[1] != 3;
  }
  return o;
}

// The kinds an op accepts and the kind it makes (pad maps each input to its padded kind).
VKind result_kind(const Transform& t, const std::vector<VKind>& in) {
  auto need = [&](std::initializer_list<VKind> ok) {
    if (in.size() != 1) bad(t.path + ".inputs", fmt::format("this op reads one value, got {}", in.size()));
    for (VKind k : ok)
      if (in[0] == k) return in[0];
    bad(t.path + ".inputs", "reads a value of the wrong kind for this op (e.g. pixels before patchify, or an "
                            "integer tensor)");
  };
  switch (t.op) {
    case Op::kDecode:
      if (!in.empty()) bad(t.path + ".inputs", "decode reads the encoded image, not a value");
      return VKind::kRaster;
    case Op::kConvertRgb:
    case Op::kResize: need({VKind::kRaster}); return VKind::kRaster;
    case Op::kRescale:
    case Op::kNormalize: need({VKind::kRaster, VKind::kPixels}); return VKind::kPixels;
    case Op::kTile: need({VKind::kRaster}); return VKind::kPixels;
    case Op::kPatchify: need({VKind::kRaster, VKind::kPixels}); return VKind::kPatches;
    case Op::kFlatten: need({VKind::kPatches}); return VKind::kPatches;
    case Op::kEmitOriginalSize: need({VKind::kRaster, VKind::kPixels, VKind::kPatches}); return VKind::kOriginal;
    case Op::kEmitTransformedSize:
      need({VKind::kRaster, VKind::kPixels, VKind::kPatches, VKind::kPaddedPixels});
      return VKind::kTransformed;
    case Op::kEmitValidityMask:
      need({VKind::kPixels, VKind::kPatches, VKind::kPadded, VKind::kPaddedPixels});
      return VKind::kMask;
    case Op::kEmitTokenCount:
      if (t.tokens_per_tile) need({VKind::kPixels});
      else need({VKind::kPatches, VKind::kPadded});
      return VKind::kTokenCount;
    case Op::kEmitPatchCoordinates: need({VKind::kPatches}); return VKind::kCoords;
    case Op::kEmitGridCoordinates: need({VKind::kPatches, VKind::kPadded}); return VKind::kGrid;
    case Op::kPad: break;
  }
  bad(t.path, "internal: pad has several results");
}

bool content_accepts(const std::string& content, VKind k) {
  if (content == "pixels")
    return k == VKind::kRaster || k == VKind::kPixels || k == VKind::kPatches || k == VKind::kPadded ||
           k == VKind::kPaddedPixels;
  if (content == "token_count") return k == VKind::kTokenCount;
  if (content == "patch_coordinates") return k == VKind::kCoords || k == VKind::kPaddedCoords;
  if (content == "grid_dimensions") return k == VKind::kGrid;
  if (content == "original_size") return k == VKind::kOriginal;
  if (content == "transformed_size") return k == VKind::kTransformed;
  return k == VKind::kMask;  // validity_mask
}

}  // namespace

ImageProgram ImageProgram::parse(const nlohmann::json& image, const std::string& path) {
  if (!image.is_object()) bad(path, "must be a mapping with transforms and outputs");
  const Json* transforms = field(image, "transforms");
  const Json* outputs = field(image, "outputs");
  if (!transforms || !transforms->is_array() || transforms->empty() || transforms->size() > kMaxTransforms)
    bad(path + ".transforms", fmt::format("must list 1..{} transforms", kMaxTransforms));
  if (!outputs || !outputs->is_array() || outputs->empty() || outputs->size() > kMaxOutputs)
    bad(path + ".outputs", fmt::format("must list 1..{} outputs", kMaxOutputs));
  for (const char* legacy : {"resize", "tiling", "normalize"})
    if (field(image, legacy)) bad(path + "." + legacy, "the legacy (pre-transforms) form is not read; use transforms");
  ImageProgram p;
  std::map<std::string, VKind> kinds;
  FitMode fit = FitMode::kStretch;
  ResizeFilter filter = ResizeFilter::kBicubic;
  std::vector<std::string> previous;
  std::set<std::string> hd_tiles;  // values holding hd_transform tiles (what tokens_per_tile counts)
  for (std::size_t i = 0; i < transforms->size(); ++i) {
    Transform t = parse_transform((*transforms)[i], fmt::format("{}.transforms[{}]", path, i));
    if (t.op == Op::kResize) {
      filter = t.filter;
      fit = t.mode == ImageProgram::ResizeMode::kCrop ? FitMode::kCrop
            : t.mode == ImageProgram::ResizeMode::kPad ? FitMode::kPad
                                                       : FitMode::kStretch;
    }
    if (t.op == Op::kTile) {
      t.tiling.fit = fit;
      t.tiling.filter = filter;
      if (t.tiling.mode != TileSpec::Mode::kDynamicHd) t.tiling.thumbnail_filter = filter;
    }
    if (t.inputs.empty() && t.op != Op::kDecode) {
      if (previous.size() != 1)
        bad(t.path + ".inputs", fmt::format("must be given: the transform before made {} values", previous.size()));
      t.inputs = previous;
    }
    std::vector<VKind> in;
    for (const auto& name : t.inputs) {
      auto it = kinds.find(name);
      if (it == kinds.end()) bad(t.path + ".inputs", fmt::format("reads '{}', which no earlier transform makes", name));
      in.push_back(it->second);
    }
    std::vector<VKind> made;
    if (t.op == Op::kPad) {
      for (VKind k : in) {
        if (k == VKind::kPatches) made.push_back(VKind::kPadded);
        else if (k == VKind::kCoords) made.push_back(VKind::kPaddedCoords);
        else if (k == VKind::kPixels) made.push_back(VKind::kPaddedPixels);
        else bad(t.path + ".inputs", "pad reads patches, patch coordinates or (tiled) pixels");
      }
      if (made.empty()) bad(t.path + ".inputs", "pad reads at least one value");
    } else {
      made.push_back(result_kind(t, in));
    }
    if (t.outputs.empty())
      for (std::size_t k = 0; k < made.size(); ++k) t.outputs.push_back(fmt::format("#{}.{}", i, k));
    if (t.outputs.size() != made.size())
      bad(t.path + ".outputs", fmt::format("names {} values; this op makes {}", t.outputs.size(), made.size()));
    const bool from_hd = (t.op == Op::kTile && t.tiling.mode == TileSpec::Mode::kHdTransform) ||
                         ((t.op == Op::kRescale || t.op == Op::kNormalize) && hd_tiles.count(t.inputs[0]));
    if (t.op == Op::kEmitTokenCount && t.tokens_per_tile && !hd_tiles.count(t.inputs[0]))
      bad(t.path + ".tokens_per_tile", "counts the tiles of a `tile` op with mode hd_transform; its input is not one");
    if (from_hd) hd_tiles.insert(t.outputs[0]);
    for (std::size_t k = 0; k < made.size(); ++k)
      if (!kinds.emplace(t.outputs[k], made[k]).second)
        bad(t.path + ".outputs", fmt::format("'{}' is already defined (value names are unique)", t.outputs[k]));
    previous = t.outputs;
    p.transforms_.push_back(std::move(t));
  }
  if (p.transforms_.front().op != Op::kDecode) bad(path + ".transforms[0].op", "the first transform must decode");
  for (const Transform& pad : p.transforms_)  // a patchify whose patches get padded reserves the room
    if (pad.op == Op::kPad)
      for (Transform& t : p.transforms_)
        if (t.op == Op::kPatchify && std::find(pad.inputs.begin(), pad.inputs.end(), t.outputs[0]) != pad.inputs.end())
          t.reserve_patches = std::max(t.reserve_patches, pad.target_length);
  std::set<std::string> names;
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    Output o = parse_output((*outputs)[i], fmt::format("{}.outputs[{}]", path, i));
    if (!names.insert(o.name).second) bad(o.path + ".name", fmt::format("'{}' is declared twice", o.name));
    if (o.source.empty()) {  // the last value of a kind this content takes
      for (auto t = p.transforms_.rbegin(); t != p.transforms_.rend() && o.source.empty(); ++t)
        for (const auto& name : t->outputs)
          if (content_accepts(o.content, kinds.at(name))) o.source = name;
      if (o.source.empty() && !o.optional)
        bad(o.path + ".source", fmt::format("no transform makes a value for content '{}'", o.content));
    } else {
      auto it = kinds.find(o.source);
      if (it == kinds.end()) bad(o.path + ".source", fmt::format("'{}' is not made by any transform", o.source));
      if (!content_accepts(o.content, it->second))
        bad(o.path + ".source", fmt::format("'{}' does not carry content '{}'", o.source, o.content));
    }
    p.outputs_.push_back(std::move(o));
  }
  return p;
}

}  // namespace ogai::media
