// PyTorch's torch.nn.functional.interpolate(x, size, mode="bicubic", align_corners=False) on
// float planes, without antialiasing (the call Hugging Face's Phi-3-V processor makes for its
// global image, and what ONNX Runtime's Resize(mode=cubic, half_pixel) computes for
// transformers.js): output sample (x, y) reads the 4 x 4 source samples around
// ((x + 0.5) * in / out - 0.5, (y + 0.5) * in / out - 0.5), the coordinates in float and not
// clamped, the indices clamped to the border, weighted by the cubic convolution kernel with
// A = -0.75 in float. Not Pillow's bicubic (resize.h: a = -0.5, antialiased, 8-bit).
// [channels, in_h, in_w] -> [channels, out_h, out_w]; the caller bounds the sizes. Pure;
// thread-safe.
#pragma once

#include <cstdint>
#include <vector>

namespace ogai::media {

std::vector<float> interpolate_bicubic(const std::vector<float>& chw, std::uint32_t channels, std::uint32_t in_width,
                                       std::uint32_t in_height, std::uint32_t out_width, std::uint32_t out_height);

}  // namespace ogai::media
