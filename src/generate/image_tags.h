// Phi-3-V's numbered image tags in prompt text (Hugging Face's Phi3VProcessor, ONNX Runtime
// GenAI's phi3v processor): `<|image_N|>` is not a token of its vocabulary, so the text is split
// at each tag, every piece is tokenized on its own (the first with the special tokens asked for,
// the others without, as the processor drops each later piece's BOS), and each tag becomes one
// id -N in between. PromptExpander (prompt_expansion.h) later repeats -N once per feature row of
// the N-th image: the embedding graph places image features at negative ids.
// A tag is `<|image_` + decimal digits + `|>`; N must be in [1, kMaxImageTag] (0 or a longer
// number is an error naming the tag). Text without tags tokenizes exactly as encode() does.
// Pure; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "ogai/token_id.h"
#include "tokenizer/tokenizer.h"

namespace ogai::generate {

inline constexpr int kMaxImageTag = 4096;

std::vector<TokenId> encode_with_image_tags(const tokenizer::Tokenizer& tok, std::string_view text,
                                            bool add_special_tokens);

}  // namespace ogai::generate
