// Multimodal rotary positions (mRoPE) of Qwen2-VL, Qwen2.5-VL and Qwen3-VL: the 3-D position ids
// a decoder with a [3, batch, sequence] position_ids port is fed (docs/multimodal.md, "Qwen-VL
// positions"). Pure functions on plain values; no ONNX Runtime, no tokenizer.
//
// The rule (Hugging Face's get_rope_index for images):
//  - text tokens share one position on the three axes (temporal, height, width), counting on
//    from the largest position so far plus one (0 for the first token);
//  - the N = t * (h / merge) * (w / merge) soft tokens of an image with grid [t, h, w]
//    (image_grid_thw, patches before the spatial merge) get (ti, hi, wi) + s on the three axes,
//    ti < t, hi < h / merge, wi < w / merge in row-major order, where s is the position the
//    image's first soft token would have had as text;
//  - after the prompt, the token at index i gets i + delta on every axis, delta = the largest
//    prompt position + 1 - the prompt's length (the "rope delta", <= 0).
// Not covered: videos (Qwen2.5-VL scales the temporal index by seconds per grid step; Qwen3-VL
// gives video frames timestamps); images have t = 1 in every processor, where the rules agree.
// Padding is not represented: positions are over a row's real tokens.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ogai/token_id.h"

namespace ogai::generate {

// One image_grid_thw row: patches along time, height and width, before the spatial merge.
struct MropeGrid {
  std::int64_t t = 1, h = 1, w = 1;
};

// An image's soft tokens in a sequence: `start` is the first one's index.
struct MropeSpan {
  std::int64_t start = 0;
  MropeGrid grid;
};

struct MropePositions {
  std::int64_t length = 0;         // tokens covered
  std::vector<std::int64_t> axes;  // [3, length] row-major: temporal, height, width
  std::int64_t delta = 0;          // positions after the covered tokens: index + delta on every axis
  // The position of token `index` on `axis` (0, 1, 2); indices >= length continue with delta.
  std::int64_t at(int axis, std::int64_t index) const;
};

// Soft tokens of an image with grid `g` after a spatial merge of `merge`; throws
// kInvalidArgument naming the grid when a dimension is < 1 or h, w are not multiples of merge.
std::int64_t mrope_soft_tokens(const MropeGrid& g, std::int64_t merge);

// The positions of a sequence of `length` tokens holding `spans` (ascending, not overlapping,
// inside the sequence; each `mrope_soft_tokens` long). Throws kInvalidArgument naming the span
// otherwise, or for merge < 1.
MropePositions mrope_positions(std::int64_t length, std::span<const MropeSpan> spans, std::int64_t merge);

// Where the images of `ids` sit: the i-th image is the first run of `soft` ids at or after the
// end of the previous one, and must hold mrope_soft_tokens(grids[i]) of them. Throws
// kInvalidArgument when an image's run is missing or shorter than its grid says.
std::vector<MropeSpan> mrope_spans(std::span<const TokenId> ids, TokenId soft, std::span<const MropeGrid> grids,
                                   std::int64_t merge);

}  // namespace ogai::generate
