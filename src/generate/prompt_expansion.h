// Prompt expansion: each image / audio placeholder token of a tokenized prompt becomes the
// family's begin marker, one soft token per feature row the encoder produced, and the end marker
// (Hugging Face processors do this on the text; here it is done on ids, so prompts given as ids
// expand the same way). The family is chosen from the tokenizer's vocabulary (the package's
// special tokens), first match wins:
//   Gemma-4   <|image|> -> <|image> <|image|> x N <image|>      <|audio|> -> <|audio> <|audio|> x N <audio|>
//   Gemma-3/3n <start_of_image> -> <start_of_image> <image_soft_token> x N <end_of_image>  (audio alike)
//   Qwen-VL   <|image_pad|> -> <|vision_start|> <|image_pad|> x N <|vision_end|>  (Qwen2-Audio: <|AUDIO|>)
//   Phi-3-V   -N (the tag <|image_N|>, image_tags.h) -> -N x N_rows (no markers); chosen by the
//             package's image program (an hd_transform tile), not the vocabulary. The tags must
//             number the images 1, 2, ... in prompt order, each once (the embedding graph
//             places the images' features at the negative ids in order, whatever N says).
// A begin or end marker the prompt already has beside the placeholder (the chat template wrote
// it) is not doubled. Images and audio are matched to their placeholders separately, each in
// order; a count that differs is an error naming both counts and the placeholder.
// Immutable; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "generate/prompt_media.h"
#include "ogai/token_id.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {

class PromptExpander {
 public:
  struct Tokens {
    std::string placeholder_text;
    TokenId placeholder = 0, soft = 0;
    std::optional<TokenId> begin, end;
  };

  // The family of `tok`'s vocabulary (null or none found: an expander that refuses media).
  static PromptExpander for_vocabulary(const tokenizer::Tokenizer* tok);
  // Phi-3-V's numbered image tags (family "phi3v"; images only).
  static PromptExpander numbered_images();
  bool numbered() const { return numbered_; }

  const std::string& family() const { return family_; }
  const std::optional<Tokens>& tokens(bool audio) const { return audio ? audio_ : image_; }

  // The expanded prompt. `media` holds the encoded items in request order (images and audio
  // interleaved as given); on return they are in prompt order with their marks. Throws
  // kInvalidArgument when the placeholders and the media do not pair up.
  std::vector<TokenId> expand(std::span<const TokenId> prompt, PromptMedia& media) const;

 private:
  std::vector<TokenId> expand_numbered(std::span<const TokenId> prompt, PromptMedia& media) const;

  std::string family_;
  std::optional<Tokens> image_, audio_;
  bool numbered_ = false;
};

}  // namespace ogai::generate
