// Encoder: the encoder graph of an encoder-decoder package (Whisper's audio encoder, a translation
// model's source encoder), run once per request before the decoder's prefill. Its outputs become
// the request row's CrossState (cross_state.h): the decoder inputs named in
// DecoderSpec::encoder_inputs, read-only on every decode step.
//
// One run is batch 1: audio features [1, mels, frames] (float32, as the features input declares),
// or source ids [1, n] with an all-ones mask [1, n] when the graph takes one. Every output is
// checked against the decoder input it feeds before it is kept: same element type and rank, batch
// 1, each fixed dim of the decoder port equal; a graph whose outputs ignore their feeds (ORT
// GenAI's node-free dummies) is refused naming the output and the shape it expected. runs()
// counts the encoder runs (each request runs it once). Thread-safe: run() is const (the ORT
// session is), the counter atomic.
#pragma once

#include <atomic>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "generate/cross_state.h"
#include "ogai/token_id.h"
#include "ort/session.h"

namespace ogai::generate {

struct EncoderSpec {
  std::filesystem::path artifact;
  std::string features_input;  // float [batch, mels, frames]; empty for a source-id encoder
  std::string token_input;     // [batch, n]; empty for an audio encoder
  std::string mask_input;      // [batch, n] ones; empty when absent
  std::vector<std::string> outputs;         // one per DecoderSpec::encoder_inputs, same order
  std::vector<ort::PortInfo> decoder_ports;  // the decoder inputs they feed, same order
};

class Encoder {
 public:
  Encoder(EncoderSpec spec, const ort::SessionOptions& options);

  const EncoderSpec& spec() const { return spec_; }
  // The features input as the graph declares it ([batch, mels, frames]; -1 where dynamic).
  const ort::PortInfo& features_port() const;

  CrossStatePtr run_features(ort::Tensor features) const;
  CrossStatePtr run_tokens(std::span<const TokenId> ids) const;
  std::uint64_t runs() const { return runs_.load(); }

 private:
  CrossStatePtr run(std::vector<std::string> names, std::vector<ort::Tensor> feeds) const;
  void check_output(std::size_t i, const ort::Tensor& produced) const;

  EncoderSpec spec_;
  ort::Session session_;
  mutable std::atomic<std::uint64_t> runs_{0};
};

}  // namespace ogai::generate
