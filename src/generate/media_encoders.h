// MediaEncoders: a multimodal package's media front (metadata/multimodal_abi.h) — the document's
// preprocessing.image / preprocessing.audio programs (src/media, with their decode limits) and
// the encoder graphs they feed. encode() turns one encoded file into the feature rows the
// embedding graph places at the prompt's soft tokens (prompt_media.h).
//
// The encoder's output is checked before it is used: its dtype is the embedding port's, its
// shape [rows, width] or [1, rows, width] with the port's width and at least one row; otherwise
// the error names the output and the shape expected (no-node graphs returning fixed initializers
// are refused there or at the embedding). Immutable after construction; encode() is thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generate/embedding_stage.h"
#include "generate/prompt_media.h"
#include "media/audio/decode.h"
#include "media/audio/program.h"
#include "media/image/limits.h"
#include "media/image/program.h"
#include "metadata/multimodal_abi.h"
#include "ogai/media.h"
#include "ort/session.h"

namespace ogai::generate {

class MediaEncoders {
 public:
  MediaEncoders(const metadata::MultimodalAbi& abi, const nlohmann::json& preprocessing,
                const EmbeddingStage& embedding, const ort::SessionOptions& options,
                SessionPreload* preload = nullptr);  // session_preload.h

  bool accepts(MediaInput::Kind kind) const;
  // Whether the image program tiles with Phi-3-V's HD transform (its prompts number the images:
  // image_tags.h).
  bool hd_tiles() const;
  // Decodes, preprocesses and encodes `media`; `what` names it in errors ("media[0]", ...).
  EncodedMedia encode(const MediaInput& media, const std::string& what) const;

  media::ImageLimits image_limits;
  media::audio::DecodeLimits audio_limits;

 private:
  struct Encoder {
    metadata::EncoderAbi abi;
    ort::Session session;
    std::size_t port = 0;  // the embedding feature port
    DataType dtype = DataType::kUndefined;
    std::int64_t width = 0;
  };
  const Encoder* find(bool audio) const;
  // Also sets `grid` and `merge` from a grid_dimensions output (Qwen2-VL's image_grid_thw).
  std::vector<ort::Tensor> image_feeds(const Encoder& e, const MediaInput& media, const std::string& what,
                                       std::optional<MropeGrid>& grid, std::int64_t& merge) const;
  std::vector<ort::Tensor> audio_feeds(const Encoder& e, const MediaInput& media, const std::string& what) const;
  EncodedMedia run(const Encoder& e, std::vector<ort::Tensor> feeds, const std::string& what) const;

  std::optional<media::ImageProgram> image_;
  std::optional<media::audio::AudioProgram> audio_;
  std::vector<Encoder> encoders_;
};

}  // namespace ogai::generate
