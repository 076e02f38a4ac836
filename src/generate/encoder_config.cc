#include "generate/encoder_config.h"

#include "base/error.h"
#include "metadata/encoder_decoder.h"

namespace ogai::generate {
namespace {

std::optional<TokenId> special_id(const metadata::Document& doc, std::string_view name) {
  if (!doc.package || !doc.package->tokenizer) return std::nullopt;
  for (const auto& [key, token] : doc.package->tokenizer->special_tokens)
    if (key == name) {
      if (token.id < 0 || token.id > std::numeric_limits<TokenId>::max())
        fail(ErrorCode::kInvalidPackage, "package.tokenizer.special_tokens." + key, "token id {} is outside [0, 2^31)",
             token.id);
      return static_cast<TokenId>(token.id);
    }
  return std::nullopt;
}

EncoderInputConfig input_config(const metadata::Package& package, const metadata::EncoderDecoderAbi& abi) {
  EncoderInputConfig c;
  const metadata::Document& doc = package.document;
  c.decoder_start = special_id(doc, "decoder_start");
  if (!abi.preprocess.empty()) {
    if (!doc.preprocessing.is_object() || !doc.preprocessing.contains("audio"))
      fail(ErrorCode::kInvalidPackage, "preprocessing.audio", "missing: the audio adapter '{}' runs it", abi.preprocess);
    c.audio_program = doc.preprocessing["audio"];
    c.features_value = abi.features_value;
    for (const char* name : {"decoder_start", "language", "task", "no_timestamps"})
      if (auto id = special_id(doc, name)) c.forced_ids.push_back(*id);
  }
  return c;
}

}  // namespace

std::optional<EncoderConfig> make_encoder_config(const metadata::Package& package, DecoderSpec& decoder) {
  if (!package.decoder) return std::nullopt;
  auto abi = metadata::derive_encoder_decoder(package.document, package.decoder->component,
                                              package.files.component_artifacts);
  if (!abi) return std::nullopt;
  EncoderConfig c;
  c.spec.artifact = abi->artifact;
  c.spec.features_input = abi->features_input;
  c.spec.token_input = abi->token_ids_input.value_or("");
  c.spec.mask_input = abi->attention_mask_input.value_or("");
  if (abi->preprocess.empty() && c.spec.token_input.empty())
    fail(ErrorCode::kUnsupported, "pipeline.workflow.components." + abi->encoder, "the encoder reads neither an audio "
         "program's features nor source token ids");
  for (const auto& feed : abi->feeds) {
    c.spec.outputs.push_back(feed.encoder_output);
    decoder.encoder_inputs.push_back(feed.decoder_input);
  }
  c.input = input_config(package, *abi);
  return c;
}

}  // namespace ogai::generate
