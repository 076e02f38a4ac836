// The encoder-decoder shape of a workflow (Whisper-style speech recognition, translation): what the
// native engine needs to run an encoder once per request before the decoder's prefill.
//
// Recognized shape (anything else is not this shape, and a package that has it and something more
// runs through the workflow interpreter or is refused there):
//   [invoke of an onnx-genai.audio-preprocess@1 adapter]   encoded bytes -> features
//   invoke of one ONNX component E (the encoder)            features or source ids -> outputs
//   invoke of the sole decoder                              prompt tokens, self KV, cross KV
//   emits only
// Each encoder output reaches the decoder in one of two ways:
//   - cross-attention state: a state cell of a `cross_attention` service group whose initializer
//     is that output's value; the decoder reads it through a read_only alias (`input` port) on
//     every step, and no step writes it (produced once, per request row);
//   - a direct feed: the decoder's invoke binds the encoder's value to one of its inputs (e.g. the
//     encoder_hidden_states role), read on every step the same way.
// Encoder inputs: the port the adapter's value feeds (audio features), or ports with the
// token_ids / attention_mask roles (source ids). Plain value types; thread-safe to read.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metadata/document.h"

namespace ogai::metadata {

// One decoder input the encoder's output fills, read-only on every decode step.
struct EncoderFeed {
  std::string encoder_output;  // encoder graph output port
  std::string decoder_input;   // decoder graph input port
  std::string cell;            // the cross_attention state cell ("" for a direct feed)
};

struct EncoderDecoderAbi {
  std::string encoder;                    // the component
  std::filesystem::path artifact;         // resolved graph (empty in document-only mode)
  std::string preprocess;                 // the audio-preprocess adapter component ("" when none)
  std::string features_value;             // the adapter output value the encoder reads ("" when none)
  std::string features_input;             // the encoder port it feeds
  std::optional<std::string> token_ids_input, attention_mask_input;  // source-id encoders
  std::vector<EncoderFeed> feeds;         // in the decoder's ABI order (cross cells by layer, key first)
};

// The shape above for `decoder` (the sole decoder), or nullopt.
std::optional<EncoderDecoderAbi> derive_encoder_decoder(const Document& doc, const std::string& decoder,
                                                        const std::map<std::string, std::filesystem::path>& artifacts);

}  // namespace ogai::metadata
