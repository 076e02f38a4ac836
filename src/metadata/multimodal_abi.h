// The derived multimodal front of a single-step package (docs/multimodal.md): which component turns
// token ids and media features into the sole decoder's inputs_embeds (the "embedding"), which
// encoder components feed it, and where each encoder input comes from (an output of the
// document's preprocessing.image / preprocessing.audio program, reached through a request input
// with role media or through an image-/audio-preprocess adapter invoke).
//
// Derived from the workflow's data flow only (never from component or port names): the decoder's
// inputs_embeds port is bound to a value; the invoke producing it is the embedding; each other
// input of the embedding is produced by an ONNX invoke (an encoder) whose inputs come from media.
// Shapes the native engine cannot run are refused by document path (derive throws). Plain values;
// thread-safe to read. Never links ONNX Runtime.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "metadata/package.h"

namespace ogai::metadata {

enum class MediaKind { kImage, kAudio };
const char* media_kind_name(MediaKind kind);

// One encoder input: the preprocessing output that fills it.
struct EncoderInput {
  std::string port;            // the encoder's input port
  std::string program_output;  // the output of preprocessing.<kind> it takes ("image.pixel_values")
};

struct EncoderAbi {
  std::string component;
  std::filesystem::path artifact;
  MediaKind kind = MediaKind::kImage;
  std::vector<EncoderInput> inputs;
  std::string output;           // the features port
  std::string embedding_input;  // the embedding's port the features feed
  std::string path;             // the invoke's document path (for messages)
};

struct MultimodalAbi {
  std::string embedding;  // the component producing the decoder's inputs_embeds
  std::filesystem::path embedding_artifact;
  std::string ids_input;      // embedding port fed the prompt tokens (role prompt_tokens)
  std::string embeds_output;  // embedding port bound to the decoder's inputs_embeds
  std::vector<EncoderAbi> encoders;  // in step order
  // Every component the native engine runs for this front (embedding, encoders, preprocess
  // adapters): a workflow invoking only these and the decoder needs no interpreter.
  std::set<std::string> components;
};

// nullopt when the package's sole decoder is not fed by an inputs_embeds port bound to another
// component's output. Throws ogai::Error (kUnsupported) naming the document path of what the
// native engine cannot run (an encoder input with no preprocessing output, a loop, ...).
std::optional<MultimodalAbi> derive_multimodal_abi(const Package& package);

}  // namespace ogai::metadata
