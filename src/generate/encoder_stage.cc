#include "generate/encoder_stage.h"

#include "base/error.h"

namespace ogai::generate {

EncoderSpec EncoderStage::with_ports(EncoderSpec spec, const Decoder& decoder) {
  spec.decoder_ports.clear();
  for (const auto& name : decoder.spec().encoder_inputs) {
    const ort::PortInfo* port = decoder.session().find_input(name);
    if (!port) fail(ErrorCode::kInvalidPackage, decoder.session().origin(), "'{}' is not an input of the graph", name);
    spec.decoder_ports.push_back(*port);
  }
  return spec;
}

EncoderStage::EncoderStage(EncoderConfig config, const Decoder& decoder, const ort::SessionOptions& options)
    : input_(config.input), encoder_(with_ports(std::move(config.spec), decoder), options) {}

EncoderStage::Prepared EncoderStage::prepare(const ResolvedRequest& request, std::span<const TokenId> prompt) const {
  Prepared p;
  static const std::vector<MediaInput> kNone;
  const std::vector<MediaInput>& media = request.media_inputs ? *request.media_inputs : kNone;
  if (input_.takes_audio()) {
    p.cross = encoder_.run_features(input_.features(media, encoder_.features_port()));
  } else {
    if (!media.empty())
      fail(ErrorCode::kUnsupported, "media[0]", "this package's encoder reads source text, not media");
    p.cross = encoder_.run_tokens(prompt);
  }
  p.prompt = input_.decoder_prompt(prompt);
  return p;
}

}  // namespace ogai::generate
