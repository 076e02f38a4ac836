// The encoder side of an encoder-decoder package (metadata/encoder_decoder.h), as the engine runs
// it: the encoder graph's spec, what the request feeds it (encoder_input.h), and the decoder
// inputs its outputs fill (DecoderSpec::encoder_inputs, set here). The decoder ports' geometry is
// completed from the live session when the model loads (Encoder's constructor checks against it).
#pragma once

#include <optional>

#include "generate/decoder_spec.h"
#include "generate/encoder.h"
#include "generate/encoder_input.h"
#include "metadata/package.h"

namespace ogai::generate {

struct EncoderConfig {
  EncoderSpec spec;  // decoder_ports filled at load from the decoder's session
  EncoderInputConfig input;
};

// nullopt for a package without the encoder-decoder shape. Fills decoder.encoder_inputs (the
// caller disables the prefix cache for such packages: a cached state would carry another
// request's encoder outputs). Throws ogai::Error naming what cannot run.
std::optional<EncoderConfig> make_encoder_config(const metadata::Package& package, DecoderSpec& decoder);

}  // namespace ogai::generate
