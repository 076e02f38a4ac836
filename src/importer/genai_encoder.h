// Encoder-decoder folders (ORT GenAI type `whisper`), internal to the importer: reading
// `model.encoder`, and binding the encoder graph and the decoder's cross-attention ports.
//
// read_encoder_section() reads model.encoder (filename, head_size, num_attention_heads,
// num_hidden_layers, hidden_size, inputs.audio_features, outputs.encoder_hidden_states /
// cross_present_key_names / cross_present_value_names) and model.decoder_start_token_id. It is
// required for `whisper` and refused for every other type (an encoder, a start token or cross
// names on a decoder-only folder), as are cross names without an encoder.
//
// split_cross_ports() takes the decoder graph's cross-attention inputs (cross_past_key_names /
// cross_past_value_names, `%d` = layer) and its cross-attention weights outputs
// (output_cross_qk_names) out of its interface, so that the decoder-only binding
// (decoder_ports.h) sees ids, self KV and logits only; bind_encoder_ports() then binds the encoder
// graph: its one runtime input is the audio features (float [batch, mels, frames]); per layer its
// present cross key/value output must equal the decoder's cross input of that layer (dtype, rank
// 4, every fixed dim; heads = model.encoder.num_attention_heads, head size =
// model.encoder.head_size), layers 0..N-1 with N = model.decoder.num_hidden_layers. Anything else
// is refused naming the config field or the graph port. Pure functions; throw ogai::Error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "importer/genai_config.h"
#include "importer/json_reader.h"
#include "onnx/graph_info.h"

namespace ogai::importer {

void read_encoder_section(const JsonReader& r, const Json& model, GenaiConfig& c);

struct CrossLayer {
  std::int64_t index = 0;
  onnx::ValueInfo past_key, past_value;        // decoder inputs   [batch, heads, encoder_len, head_size]
  onnx::ValueInfo present_key, present_value;  // encoder outputs, the same geometry
};

struct EncoderPorts {
  std::string graph;                             // the encoder graph's file name
  onnx::ValueInfo features;                      // float [batch, mels, frames]
  std::optional<onnx::ValueInfo> hidden_states;  // [batch, encoder_len, hidden]
  std::vector<CrossLayer> layers;                // by index
  std::vector<onnx::ValueInfo> cross_qk;         // decoder outputs (output_cross_qk_names), by index
  std::vector<std::string> unused_outputs;       // encoder outputs not bound
};

// The decoder interface without its cross ports; those are recorded in `ports`.
onnx::GraphInfo split_cross_ports(const GenaiConfig& c, const onnx::GraphInfo& decoder, const std::string& graph_name,
                                  EncoderPorts& ports);
void bind_encoder_ports(const GenaiConfig& c, const onnx::GraphInfo& encoder, const std::string& graph_name,
                        EncoderPorts& ports);

}  // namespace ogai::importer
