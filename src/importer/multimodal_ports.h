// Binding a multimodal genai_config.json (model.vision / model.speech / model.embedding beside the
// decoder) to its graphs' real interfaces, cross-checking them, and translating the processor
// configs into preprocessing programs (internal to the importer).
//
// bind_multimodal() reads each session's graph interface (weights skipped) and requires:
//  - embedding: runtime inputs that are exactly the config's input_ids (int32/int64 [batch,
//    sequence]), image_features when there is a vision session and audio_features when there is a
//    speech session (a features input without its session, or a session whose features the
//    embedding does not take, is refused by name); the inputs_embeds output, a float rank 3
//    [batch, sequence, hidden] whose dtype and hidden size equal the decoder's inputs_embeds;
//  - vision / speech: the features output the config names (image_features / audio_features), a
//    float of the dtype the embedding's features input has and, when both are fixed, the same
//    width; every runtime input a tensor. Where the processor config (vision/speech
//    .config_filename) exists, every runtime input must be a tensor the processor makes
//    (processor_import.h), in the graph's dtype; the session is fed by a program. Where a vision
//    processor config does not exist, the graph's inputs become request inputs (role media) that
//    a caller fills with preprocessed tensors; a speech session needs its config (as in ORT GenAI);
//  - the decoder took inputs_embeds (decoder_ports.h); a decoder that also takes input_ids must
//    take the embedding's dtype (both are fed the same request.input_ids).
// Every graph stays inside the folder. Throws ogai::Error: kNotFound for a missing graph or
// processor file, kParse for malformed files, kUnsupported naming the config field and the port.
// Pure function of the folder.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "importer/decoder_ports.h"
#include "importer/genai_config.h"
#include "onnx/graph_info.h"

namespace ogai::importer {

// A vision or speech session.
struct EncoderPlan {
  std::string component;  // "vision" | "speech"
  std::string artifact;   // the graph, relative to the folder
  std::vector<onnx::ValueInfo> inputs;  // its runtime inputs, graph order
  onnx::ValueInfo features;             // its image_features / audio_features output
  // The preprocessing program (preprocessing.image / .audio), when the processor config exists;
  // then `adapter` is the adapter component running it on `request_input` (uint8 encoded bytes)
  // and each graph input takes the program output named `prefix.<graph input>`.
  std::optional<nlohmann::ordered_json> program;
  std::string adapter;        // "image_preprocess" | "audio_preprocess"
  std::string abi;            // "onnx-genai.image-preprocess" | "onnx-genai.audio-preprocess"
  std::string request_input;  // "request.image" | "request.audio"
  std::string prefix;         // "image" | "audio"
};

struct EmbeddingPlan {
  std::string artifact;
  onnx::ValueInfo input_ids, inputs_embeds;
  std::optional<onnx::ValueInfo> image_features, audio_features;
};

struct MultimodalPlan {
  std::optional<EncoderPlan> vision, speech;
  EmbeddingPlan embedding;
  std::vector<std::string> notes;  // header comments `# multimodal: ...` (processor differences, request inputs, unused outputs)
};

MultimodalPlan bind_multimodal(const GenaiConfig& config, const std::filesystem::path& dir, const DecoderPorts& decoder);

// A session's graph file inside `dir` (no absolute paths, no escape through `..` or links);
// `field` names the config field in errors (model.vision.filename).
std::filesystem::path folder_file(const GenaiConfig& config, const std::filesystem::path& dir,
                                  const std::string& name, const std::string& field);

}  // namespace ogai::importer
