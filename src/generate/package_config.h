// What the engine takes from a validated package: the decoder spec (from the decoder ABI, checked
// for what ogai can execute), the text sources, EOS ids and generation settings.
//
// Execution support today: a sole decoder fed by token ids (or by inputs_embeds made by a
// multimodal front's embedding graph: metadata/multimodal_abi.h), with attention mask / position inputs
// by role and self-attention KV groups that grow by appending along axis 2 ([B, H, S, D]).
// Anything else the metadata can express (inputs_embeds-only decoders, replace/indexed_scatter
// updates, cross-attention state the decoder writes, extra inputs with no role) is refused at load
// with an error naming it — never run approximately.
#pragma once

#include <filesystem>
#include <optional>

#include "generate/assistant_drafter.h"
#include "generate/decoder_spec.h"
#include "generate/encoder_config.h"
#include "generate/request.h"
#include "metadata/multimodal_abi.h"
#include "metadata/package.h"

namespace ogai::generate {

struct PackageConfig {
  std::filesystem::path root;
  DecoderSpec decoder;
  std::filesystem::path tokenizer_json;  // empty: the package has none and runs from token ids
  // An imported GenAI folder's session settings (mapped per provider at load: session_settings.h).
  std::optional<importer::SessionSettings> session;
  bool has_chat_template = false;
  PackageGeneration generation;  // defaults, overrides, context limit; eos ids filled by the engine
  // EOS sources, resolved to ids once the tokenizer is loaded.
  std::vector<TokenId> eos_ids;
  std::optional<std::string> eos_token;  // tokenizer_config.json eos_token, by content
  // The package's speculative proposer, when ogai can execute it; otherwise why not.
  std::optional<AssistantSpec> assistant;
  std::string assistant_unavailable;
  int max_proposal_width = 0;
  // The decoder's output with metadata role hidden_states ([batch, seq, hidden]; empty: none), what
  // Model::embed pools (embedding.h).
  std::string hidden_states_output;
  // Encoder-decoder packages (Whisper, translation): the encoder run once per request.
  std::optional<EncoderConfig> encoder;
  // A multimodal front (encoders and the embedding graph feeding the decoder's inputs_embeds;
  // decoder.embedding is set from it), or none.
  std::optional<metadata::MultimodalAbi> multimodal;
};

// Builds the engine's view of a validated package. Throws ogai::Error (kUnsupported /
// kInvalidPackage) naming what ogai cannot execute.
PackageConfig make_package_config(const metadata::Package& package);
// The text sources, EOS ids and generation settings of a looped workflow package (no decoder
// spec: the interpreter runs its graphs); tokenizer_json stays empty when it has none.
PackageConfig make_workflow_config(const metadata::Package& package);

}  // namespace ogai::generate
