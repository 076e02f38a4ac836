// EncoderStage: the encoder half of an encoder-decoder package as a loaded model runs it. For each
// request it builds what the encoder reads (encoder_input.h: the audio program over the request's
// one clip, or the source ids), runs the encoder once (encoder.h) and returns the row's CrossState
// with the decoder's prompt (forced ids). Model::Impl::start / run call it before the sequence is
// made, so every surface (Model::generate, the public Engine, the server) gets the same rules.
// Immutable after load; prepare() is const and thread-safe.
#pragma once

#include <span>
#include <vector>

#include "generate/decoder.h"
#include "generate/encoder.h"
#include "generate/encoder_config.h"
#include "generate/encoder_input.h"
#include "generate/request.h"

namespace ogai::generate {

class EncoderStage {
 public:
  // `decoder` supplies the geometry of the inputs the encoder's outputs feed.
  EncoderStage(EncoderConfig config, const Decoder& decoder, const ort::SessionOptions& options);

  struct Prepared {
    CrossStatePtr cross;
    std::vector<TokenId> prompt;  // the decoder's
  };
  Prepared prepare(const ResolvedRequest& request, std::span<const TokenId> prompt) const;

  bool takes_audio() const { return input_.takes_audio(); }
  std::uint64_t runs() const { return encoder_.runs(); }  // encoder runs so far (one per request)

 private:
  static EncoderSpec with_ports(EncoderSpec spec, const Decoder& decoder);

  EncoderInput input_;
  Encoder encoder_;
};

}  // namespace ogai::generate
