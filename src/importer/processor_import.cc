#include "importer/processor_import.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/error.h"
#include "base/file.h"
#include "importer/json_reader.h"
#include "importer/processor_fields.h"

namespace ogai::importer {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;  // keeps each op's fields in the order written

// The program being built: transforms in order, the value the last one made, and the values
// that carry each field the processor makes.
struct Builder {
  explicit Builder(const JsonReader& reader) : r(reader) {}
  const JsonReader& r;
  OJson transforms = OJson::array();
  std::vector<MadeField> made;  // field -> {content, source}
  std::vector<std::string> notes;
  bool decoded = false, bgr = false, patched = false;

  std::string add(OJson op) {
    const std::string value = fmt::format("image.transform_{}", transforms.size());
    op["outputs"] = OJson::array({value});
    transforms.push_back(std::move(op));
    return value;
  }
  std::string last() const { return transforms.back()["outputs"][0].get<std::string>(); }
};

std::int64_t positive(const JsonReader& r, const Json& a, const std::string& path, const char* key, std::int64_t fallback) {
  if (!a.contains(key)) return fallback;
  const std::int64_t v = r.integer(a[key], path + ".attrs." + key);
  if (v <= 0) r.refuse(path + ".attrs." + key, fmt::format("must be > 0, got {}", v));
  return v;
}

bool flag(const JsonReader& r, const Json& a, const std::string& path, const char* key, bool fallback) {
  if (!a.contains(key)) return fallback;
  return r.integer(a[key], path + ".attrs." + key) != 0;
}

void need_decoded(Builder& b, const std::string& path, const std::string& type) {
  if (!b.decoded) b.r.refuse(path + ".type", "'" + type + "' before DecodeImage");
  if (b.patched) b.r.refuse(path + ".type", "'" + type + "' after the image was cut into patches");
}

void decode_image(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"color_space"});
  if (b.decoded) b.r.refuse(path + ".type", "'DecodeImage' twice");
  std::string space = a.contains("color_space") ? b.r.string(a["color_space"], path + ".attrs.color_space") : "BGR";
  std::transform(space.begin(), space.end(), space.begin(), [](unsigned char ch) { return std::toupper(ch); });
  if (space != "RGB" && space != "BGR")
    b.r.refuse(path + ".attrs.color_space", "'" + space + "' is not RGB or BGR");
  b.decoded = true;
  b.bgr = space == "BGR";  // onnxruntime-extensions decodes to BGR by default
  b.add({{"op", "decode_rgb"}});
}

std::string interpolation(const JsonReader& r, const Json& a, const std::string& path) {
  const std::string mode = a.contains("interpolation") ? r.string(a["interpolation"], path + ".attrs.interpolation")
                                                       : "CUBIC";
  if (mode == "NEAREST") return "nearest";
  if (mode == "LINEAR") return "bilinear";
  if (mode == "CUBIC") return "bicubic";
  if (mode == "LANCZOS") return "lanczos";
  r.refuse(path + ".attrs.interpolation", "'" + mode + "' is not NEAREST, LINEAR, CUBIC or LANCZOS");
}

void resize(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"height", "width", "keep_aspect_ratio", "interpolation", "smart_resize",
                                       "min_pixels", "max_pixels", "patch_size", "merge_size"});
  need_decoded(b, path, "Resize");
  OJson t = {{"op", "resize"}, {"interpolation", interpolation(b.r, a, path)}};
  if (flag(b.r, a, path, "smart_resize", false)) {
    // Qwen2-VL's smart resize; the fixed height / width are not read on this path.
    t["mode"] = "pixel_area";
    t["min_pixels"] = positive(b.r, a, path, "min_pixels", 3136);
    t["max_pixels"] = positive(b.r, a, path, "max_pixels", 12845056);
    t["size_multiple"] = positive(b.r, a, path, "patch_size", 14) * positive(b.r, a, path, "merge_size", 2);
    for (const char* unused : {"height", "width"})
      if (a.contains(unused))
        b.notes.push_back(fmt::format("{}.attrs.{} {}: not read with smart_resize", path, unused, a[unused].dump()));
  } else if (!flag(b.r, a, path, "keep_aspect_ratio", true)) {
    t["mode"] = "stretch";
    t["size"] = {{"width", positive(b.r, a, path, "width", 256)}, {"height", positive(b.r, a, path, "height", 256)}};
  } else {
    b.r.refuse(path + ".attrs.keep_aspect_ratio",
               "is 1 (the default) without smart_resize: onnxruntime-extensions then scales the image to cover "
               "width x height without cropping, which no resize mode of ogai's programs does");
  }
  b.add(std::move(t));
}

void rescale(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"rescale_factor"});
  need_decoded(b, path, "Rescale");
  const double scale = a.contains("rescale_factor") ? b.r.number(a["rescale_factor"], path + ".attrs.rescale_factor")
                                                    : 1.0 / 255.0;
  b.add({{"op", "rescale"}, {"scale", scale}});
}

std::vector<double> three(const JsonReader& r, const Json& a, const std::string& path, const char* key,
                          std::vector<double> fallback) {
  if (!a.contains(key)) return fallback;
  const Json& v = a[key];
  if (!v.is_array() || v.size() != 3) r.wrong_type(path + ".attrs." + key, "a list of 3 numbers", v);
  std::vector<double> out;
  for (std::size_t i = 0; i < 3; ++i) out.push_back(r.number(v[i], fmt::format("{}.attrs.{}[{}]", path, key, i)));
  return out;
}

void normalize(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"mean", "std", "qwen2_5_vl", "qwen3_vl"});
  need_decoded(b, path, "Normalize");
  // onnxruntime-extensions' defaults (CLIP's).
  OJson t = {{"op", "normalize"},
            {"mean", three(b.r, a, path, "mean", {0.48145466, 0.4578275, 0.40821073})},
            {"std", three(b.r, a, path, "std", {0.26862954, 0.26130258, 0.27577711})}};
  for (const auto& v : t["std"])
    if (v.get<double>() <= 0) b.r.refuse(path + ".attrs.std", "must be positive, got " + t["std"].dump());
  // The Qwen flags read the pixels as BGR and write them as RGB.
  if (flag(b.r, a, path, "qwen2_5_vl", false) || flag(b.r, a, path, "qwen3_vl", false)) b.bgr = !b.bgr;
  b.add(std::move(t));
}

void made(Builder& b, const std::string& field, const char* content, const std::string& source) {
  b.made.emplace_back(field, OJson{{"content", content}, {"source", source}});
}

void check_rgb(const Builder& b, const std::string& path) {
  if (b.bgr)
    b.r.refuse(path, "the pixels reach the patches in BGR order (DecodeImage's color_space and the ConvertRGB / "
                     "Normalize channel swaps before it); ogai's image programs produce RGB");
}

void patch_image(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"patch_size", "temporal_patch_size", "merge_size"});
  need_decoded(b, path, "PatchImage");
  check_rgb(b, path + ".type");
  const std::string pixels = b.add({{"op", "patchify"},
                                    {"patch_size", positive(b.r, a, path, "patch_size", 14)},
                                    {"temporal_patch_size", positive(b.r, a, path, "temporal_patch_size", 2)},
                                    {"merge_size", positive(b.r, a, path, "merge_size", 2)},
                                    {"channel_order", "channels_first"},
                                    {"patch_order", "merge_groups"}});
  b.patched = true;
  made(b, "pixel_values", "pixels", pixels);
  OJson grid = {{"op", "emit_grid_coordinates"}, {"inputs", OJson::array({pixels})}};
  made(b, "image_grid_thw", "grid_dimensions", b.add(std::move(grid)));
}

void gemma4_transform(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"patch_size", "max_soft_tokens", "pooling_kernel_size"});
  need_decoded(b, path, "Gemma4ImageTransform");
  check_rgb(b, path + ".type");
  const std::int64_t patch = positive(b.r, a, path, "patch_size", 16);
  const std::int64_t tokens = positive(b.r, a, path, "max_soft_tokens", 280);
  const std::int64_t pooling = positive(b.r, a, path, "pooling_kernel_size", 3);
  b.add({{"op", "resize"},
         {"mode", "aspect_ratio_patch_budget"},
         {"interpolation", "bicubic"},
         {"patch_size", patch},
         {"max_patches", tokens * pooling * pooling},
         {"pooling_kernel_size", pooling}});
  b.add({{"op", "rescale"}, {"scale", 1.0 / 255.0}});
  const std::string pixels = b.add({{"op", "patchify"},
                                    {"patch_size", patch},
                                    {"channel_order", "channels_last"},
                                    {"patch_order", "raster"},
                                    {"coordinate_order", "xy"}});
  b.patched = true;
  made(b, "pixel_values", "pixels", pixels);
  made(b, "pixel_position_ids", "patch_coordinates", b.add({{"op", "emit_patch_coordinates"}, {"inputs", OJson::array({pixels})}}));
}

// Phi-3-V's HD transform as Hugging Face's Phi3VImageProcessor (docs/media.md): alpha over
// white, the hd_transform tiles (336, num_crops, bilinear, white canvas, the global image first),
// CLIP normalization, the canvas size (image_sizes), the token count and the crops padded to
// num_crops + 1. It reads the decoded image, so it must follow DecodeImage (and ConvertRGB) only.
void phi3_transform(Builder& b, const Json& op, const std::string& path) {
  const Json a = operation_attrs(b.r, op, path, {"num_crops", "num_img_tokens"});
  need_decoded(b, path, "Phi3ImageTransform");
  check_rgb(b, path + ".type");
  if (b.transforms.size() != 1)
    b.r.refuse(path + ".type", "'Phi3ImageTransform' after another pixel operation: the HD transform reads the decoded image");
  if (!a.contains("num_crops"))
    b.r.refuse(path + ".attrs.num_crops", "missing: Hugging Face's processor defaults to 1 crop and onnxruntime-extensions "
                                          "uses 16, so ogai does not guess the crop count");
  const std::int64_t crops = positive(b.r, a, path, "num_crops", 4);
  const std::int64_t tokens = positive(b.r, a, path, "num_img_tokens", 144);
  const auto side = static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(tokens))));
  if (side * side != tokens)
    b.r.refuse(path + ".attrs.num_img_tokens", fmt::format("is {}; Phi-3-V's token count needs a square (144 = 12 x 12)", tokens));
  if (crops > 64) b.r.refuse(path + ".attrs.num_crops", fmt::format("is {}; at most 64 crops", crops));
  b.transforms[0] = {{"op", "decode"}, {"outputs", b.transforms[0]["outputs"]}};
  b.add({{"op", "convert_rgb"}, {"background", {255, 255, 255}}});
  b.add({{"op", "tile"}, {"mode", "hd_transform"}, {"tile_size", 336}, {"max_tiles", crops}, {"interpolation", "bilinear"},
         {"canvas_pad_value", 255}, {"thumbnail_order", "prepend"}, {"include_thumbnail", true}});
  b.add({{"op", "rescale"}, {"scale", 1.0 / 255.0}});
  const std::string pixels = b.add({{"op", "normalize"}, {"mean", {0.48145466, 0.4578275, 0.40821073}},
                                    {"std", {0.26862954, 0.26130258, 0.27577711}}});
  made(b, "image_sizes", "transformed_size", b.add({{"op", "emit_transformed_size"}, {"inputs", OJson::array({pixels})}}));
  made(b, "num_img_tokens", "token_count",
       b.add({{"op", "emit_token_count"}, {"inputs", OJson::array({pixels})}, {"tokens_per_tile", tokens}}));
  made(b, "pixel_values", "pixels",
       b.add({{"op", "pad"}, {"inputs", OJson::array({pixels})}, {"target_length", crops + 1}, {"pad_value", 0.0}}));
  b.patched = true;
  b.notes.push_back(path + " Phi3ImageTransform: Hugging Face's Phi3VImageProcessor with num_crops " + std::to_string(crops) +
                    "; onnxruntime-extensions' kernel (read at its 2026 head) pads to 16 + 1 crops whatever num_crops says "
                    "and makes the global image with Pillow's bicubic instead of PyTorch's");
}

void image_operation(Builder& b, const Json& entry, const std::string& path) {
  const ExtensionOperation e = extension_operation(b.r, entry, path);
  const Json& op = e.op;
  const std::string& at = e.path;
  const std::string& type = e.type;
  if (type == "DecodeImage") decode_image(b, op, at);
  else if (type == "ConvertRGB") {
    operation_attrs(b.r, op, at, {});
    need_decoded(b, at, type);
    b.bgr = !b.bgr;  // onnxruntime-extensions swaps the channels whatever they are
  } else if (type == "Resize") resize(b, op, at);
  else if (type == "Rescale") rescale(b, op, at);
  else if (type == "Normalize") normalize(b, op, at);
  else if (type == "PatchImage") patch_image(b, op, at);
  else if (type == "Gemma4ImageTransform") gemma4_transform(b, op, at);
  else if (type == "Phi3ImageTransform") phi3_transform(b, op, at);
  else
    b.r.refuse(at + ".type", "'" + type + "' is not an image operation ogai translates (DecodeImage, ConvertRGB, "
                             "Resize, Rescale, Normalize, PatchImage, Gemma4ImageTransform, Phi3ImageTransform)");
}

std::string file_name(const JsonReader& r) { return r.origin().filename().string(); }

}  // namespace

ProcessorProgram parse_image_processor(const std::string& text, const std::filesystem::path& origin,
                                       const std::vector<ProgramTarget>& targets) {
  JsonReader r(origin);
  const Json root = r.parse(text);
  r.closed(r.object(root, "(top level)"), "", {"processor"});
  if (!root.contains("processor")) r.refuse("processor", "missing");
  const Json& processor = r.object(root["processor"], "processor");
  r.closed(processor, "processor", {"name", "transforms"},
           {{"output_aligner", "an output aligner (image batching rule of onnxruntime-extensions) is not translated"}});
  if (!processor.contains("transforms") || !processor["transforms"].is_array() || processor["transforms"].empty())
    r.refuse("processor.transforms", "must list the transforms");
  Builder b(r);
  const Json& list = processor["transforms"];
  for (std::size_t i = 0; i < list.size(); ++i) image_operation(b, list[i], fmt::format("processor.transforms[{}]", i));
  if (!b.decoded) r.refuse("processor.transforms", "no DecodeImage: the program starts from the encoded image");
  ProcessorProgram p;
  p.program = {{"transforms", b.transforms}, {"outputs", bind_outputs(r, b.made, targets, p.fields)}};
  for (auto& n : b.notes) p.notes.push_back(file_name(r) + " " + n);
  return p;
}

ProcessorProgram import_image_processor(const std::filesystem::path& file, const std::vector<ProgramTarget>& targets) {
  return parse_image_processor(read_file(file), file, targets);
}

}  // namespace ogai::importer
