// Translating an ONNX Runtime GenAI folder's processor configs (onnxruntime-extensions' JSON:
// processor_config.json `{"processor": {"transforms": [{"operation": {type, attrs}}]}}`, and
// audio_feature_extraction.json `{"feature_extraction": {"sequence": [...]}}`) into the v1
// document's declarative `preprocessing.image` / `preprocessing.audio` programs, the ops ogai's
// media stage runs (media/image/program.h, media/audio/program.h).
//
// Fail-closed like the rest of the importer: every operation type and attribute is looked up in
// closed tables; an operation or attribute whose effect no program op reproduces is refused,
// throwing ogai::Error(kUnsupported) whose where() is the processor file and whose message names
// the JSON path, the value and, where Hugging Face's processor has a step ogai has no op for yet,
// that step (`processor.transforms[2].operation.type: 'Phi3ImageTransform' ...`). Nothing is
// dropped silently: attributes that change nothing are named in `notes`.
//
// What is translated (each exactly, except where `notes` says otherwise):
//  - DecodeImage (color_space RGB/BGR) and ConvertRGB (a channel swap, as onnxruntime-extensions
//    does it) -> decode_rgb; the channels must end in RGB order;
//  - Resize: smart_resize -> resize pixel_area (min/max pixels, multiple patch_size * merge_size),
//    keep_aspect_ratio 0 -> resize stretch to width x height; interpolation NEAREST / LINEAR /
//    CUBIC / LANCZOS;
//  - Rescale -> rescale; Normalize (mean, std; the qwen flags swap BGR to RGB) -> normalize;
//  - PatchImage (Qwen2-VL) -> patchify (channels first, merge groups) + emit_grid_coordinates;
//  - Gemma4ImageTransform -> resize aspect_ratio_patch_budget (max_patches = max_soft_tokens x
//    pooling_kernel_size^2) bicubic, rescale 1/255, patchify (channels last, raster order) and
//    emit_patch_coordinates (x, y), unpadded, as ONNX Runtime GenAI trims them for the vision graph.
//  - AudioDecoder (target_sample_rate, stereo_to_mono 1, max_samples) + Gemma4LogMel -> Hugging
//    Face's Gemma4AudioFeatureExtractor as docs/media.md writes it (decode, downmix, resample,
//    trim 480000, pad to a multiple of 128, the semicausal log_mel, transpose, emit_validity_mask,
//    emit_token_count); the speech graph's audio_embeds, attention_mask and audio_sizes take the
//    features, the frame mask and the soft-token count (audio_processor_import.cc).
// Refused, naming the missing step: Phi3ImageTransform (Phi-3-V's HD transform), Gemma4LogMel's
// per_bin_mean / per_bin_stddev and its non-HTK pre-emphasis, any other type.
//
// Pure functions of the file's text. Thread safety: none needed.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/dtype.h"

namespace ogai::importer {

// One tensor the vision (or speech) graph takes, as the program must produce it.
struct ProgramTarget {
  std::string field;   // what the processor makes: pixel_values, pixel_position_ids, image_grid_thw, image_sizes, ...
  std::string output;  // the program output's name, e.g. "image.pixel_values"
  DataType dtype = DataType::kFloat32;  // the graph input's dtype
  int rank = -1;                        // the graph input's rank (-1: unknown)
};

struct ProcessorProgram {
  nlohmann::ordered_json program;  // {transforms: [...], outputs: [...]}
  std::vector<std::string> fields;  // the fields the processor makes (in output order, before `targets` chose)
  std::vector<std::string> notes;   // "<file> <path>: ..." for the document's header
};

// `file` is the processor config; `targets` the tensors the graph takes, each a field the
// processor must make (else kUnsupported naming the field and what the processor makes).
ProcessorProgram import_image_processor(const std::filesystem::path& file, const std::vector<ProgramTarget>& targets);
ProcessorProgram import_audio_processor(const std::filesystem::path& file, const std::vector<ProgramTarget>& targets);

// Same, for text already in memory; `origin` names it in errors.
ProcessorProgram parse_image_processor(const std::string& text, const std::filesystem::path& origin,
                                       const std::vector<ProgramTarget>& targets);
ProcessorProgram parse_audio_processor(const std::string& text, const std::filesystem::path& origin,
                                       const std::vector<ProgramTarget>& targets);

}  // namespace ogai::importer
