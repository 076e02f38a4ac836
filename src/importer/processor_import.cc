#include "importer/processor_import.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "base/error.h"
#include "base/file.h"
#include "importer/json_reader.h"

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
  std::vector<std::pair<std::string, OJson>> made;  // field -> {content, source}
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

// The operation's attrs against a closed list of names; returns {} when there are none.
Json attrs(const JsonReader& r, const Json& op, const std::string& path, std::initializer_list<std::string_view> known) {
  if (!op.contains("attrs")) return Json::object();
  const Json& a = r.object(op["attrs"], path + ".attrs");
  for (const auto& [key, value] : a.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (auto k : known) names += (names.empty() ? "" : ", ") + std::string(k);
    r.refuse(path + ".attrs." + key, "'" + value.dump() + "' is not an attribute ogai translates (known: " +
                                         (names.empty() ? std::string("none") : names) + ")");
  }
  return a;
}

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
  const Json a = attrs(b.r, op, path, {"color_space"});
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
  const Json a = attrs(b.r, op, path, {"height", "width", "keep_aspect_ratio", "interpolation", "smart_resize",
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
  const Json a = attrs(b.r, op, path, {"rescale_factor"});
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
  const Json a = attrs(b.r, op, path, {"mean", "std", "qwen2_5_vl", "qwen3_vl"});
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
  const Json a = attrs(b.r, op, path, {"patch_size", "temporal_patch_size", "merge_size"});
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
  const Json a = attrs(b.r, op, path, {"patch_size", "max_soft_tokens", "pooling_kernel_size"});
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
  b.notes.push_back(path + " Gemma4ImageTransform: resized with ogai's 8-bit (Pillow) bicubic resize; Hugging Face "
                           "and onnxruntime-extensions resample in float without clipping (within 1/255 before "
                           "rescaling; equal when the image is already at its target size)");
}

[[noreturn]] void phi3_transform(const Builder& b, const std::string& path) {
  b.r.refuse(path + ".type",
             "'Phi3ImageTransform' (Phi-3-V's HD transform) has no ogai image op yet: missing steps 'phi3v_hd' = the "
             "crop-count search up to num_crops, a bilinear resize to scale x 336 wide, centred white padding to "
             "multiples of 336, CLIP normalization, a 336 x 336 bicubic global image of the normalized pixels, the "
             "336 x 336 crops padded with zero crops to num_crops + 1, and image_sizes [height, width]");
}

void image_operation(Builder& b, const Json& entry, const std::string& path) {
  const Json& op = b.r.object(b.r.object(entry, path).contains("operation") ? entry["operation"] : entry, path);
  const std::string at = path + ".operation";
  b.r.closed(op, at, {"name", "type", "domain", "attrs"});
  if (!op.contains("type")) b.r.refuse(at + ".type", "missing");
  const std::string type = b.r.string(op["type"], at + ".type");
  if (type == "DecodeImage") decode_image(b, op, at);
  else if (type == "ConvertRGB") {
    attrs(b.r, op, at, {});
    need_decoded(b, at, type);
    b.bgr = !b.bgr;  // onnxruntime-extensions swaps the channels whatever they are
  } else if (type == "Resize") resize(b, op, at);
  else if (type == "Rescale") rescale(b, op, at);
  else if (type == "Normalize") normalize(b, op, at);
  else if (type == "PatchImage") patch_image(b, op, at);
  else if (type == "Gemma4ImageTransform") gemma4_transform(b, op, at);
  else if (type == "Phi3ImageTransform") phi3_transform(b, at);
  else
    b.r.refuse(at + ".type", "'" + type + "' is not an image operation ogai translates (DecodeImage, ConvertRGB, "
                             "Resize, Rescale, Normalize, PatchImage, Gemma4ImageTransform)");
}

std::string file_name(const JsonReader& r) { return r.origin().filename().string(); }

// The program's outputs: one per target, from the value carrying its field.
OJson outputs(const Builder& b, const std::vector<ProgramTarget>& targets, std::vector<std::string>& fields) {
  OJson out = OJson::array();
  for (const auto& [field, _] : b.made) fields.push_back(field);
  for (const ProgramTarget& t : targets) {
    auto it = std::find_if(b.made.begin(), b.made.end(), [&](const auto& m) { return m.first == t.field; });
    if (it == b.made.end()) {
      std::string listed;
      for (const auto& f : fields) listed += (listed.empty() ? "" : ", ") + f;
      fail(ErrorCode::kUnsupported, b.r.origin().string(), "the graph takes '{}', which {} does not make (it makes {})",
           t.field, file_name(b.r), listed.empty() ? std::string("nothing") : listed);
    }
    OJson o = {{"name", t.output}, {"content", it->second["content"]}, {"dtype", std::string(dtype_name(t.dtype))},
              {"source", it->second["source"]}};
    out.push_back(std::move(o));
  }
  return out;
}

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
  p.program = {{"transforms", b.transforms}, {"outputs", outputs(b, targets, p.fields)}};
  for (auto& n : b.notes) p.notes.push_back(file_name(r) + " " + n);
  return p;
}

ProcessorProgram import_image_processor(const std::filesystem::path& file, const std::vector<ProgramTarget>& targets) {
  return parse_image_processor(read_file(file), file, targets);
}

ProcessorProgram parse_audio_processor(const std::string& text, const std::filesystem::path& origin,
                                       const std::vector<ProgramTarget>& targets) {
  JsonReader r(origin);
  const Json root = r.parse(text);
  r.closed(r.object(root, "(top level)"), "", {"feature_extraction"});
  if (!root.contains("feature_extraction")) r.refuse("feature_extraction", "missing");
  const Json& fe = r.object(root["feature_extraction"], "feature_extraction");
  r.closed(fe, "feature_extraction", {"sequence"});
  if (!fe.contains("sequence") || !fe["sequence"].is_array() || fe["sequence"].empty())
    r.refuse("feature_extraction.sequence", "must list the operations");
  const Json& list = fe["sequence"];
  bool decoded = false;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("feature_extraction.sequence[{}].operation", i);
    const Json& op = r.object(r.object(list[i], path).contains("operation") ? list[i]["operation"] : list[i], path);
    r.closed(op, path, {"name", "type", "domain", "attrs"});
    const std::string type = op.contains("type") ? r.string(op["type"], path + ".type") : "";
    if (type == "AudioDecoder") {
      attrs(r, op, path, {});
      decoded = true;
    } else if (type == "Gemma4LogMel") {
      attrs(r, op, path, {"feature_size", "sampling_rate", "frame_length_ms", "hop_length_ms", "min_frequency",
                          "max_frequency", "preemphasis", "preemphasis_htk_flavor", "fft_overdrive", "mel_floor",
                          "per_bin_mean", "per_bin_stddev"});
      r.refuse(path + ".type",
               "'Gemma4LogMel' (Gemma-4's log-mel) has no ogai audio op yet: missing steps 'semicausal_frames' = "
               "frame_length / 2 zeros before the clip only and (samples + frame_length / 2 - frame_length - 1) / hop "
               "+ 1 frames, frames whose last sample is padding zeroed, and the features written time-major "
               "[frames, feature_size] (ogai's log_mel writes [mels, frames])");
    } else {
      r.refuse(path + ".type", "'" + type + "' is not an audio operation ogai translates (AudioDecoder, Gemma4LogMel)");
    }
  }
  if (!decoded) r.refuse("feature_extraction.sequence", "no AudioDecoder: the program starts from the encoded audio");
  // Reached only by a sequence without a feature operation.
  r.refuse("feature_extraction.sequence", "no feature operation after AudioDecoder: nothing for '" +
                                              (targets.empty() ? std::string("the speech graph") : targets.front().field) +
                                              "'");
}

ProcessorProgram import_audio_processor(const std::filesystem::path& file, const std::vector<ProgramTarget>& targets) {
  return parse_audio_processor(read_file(file), file, targets);
}

}  // namespace ogai::importer
