// Image and video media outputs (v1 §2.3 outputs, role image | video): an emitted float or
// integer tensor becomes 8-bit rasters and PNG files (src/media/image/png_encode.h, libpng).
//   range   role image: its `value_range` — zero_to_one [0, 1], negative_one_to_one [-1, 1],
//           zero_to_255 [0, 255]; role video: v1 declares no range for video (V-OUT allows
//           value_range on images only), so ogai reads video frames as negative_one_to_one, the
//           range the video VAEs of the standard's catalogue decode to (docs/media.md).
//           Every value is checked inside the range, with the reference runtime's tolerance of
//           1e-5 x max(range width, 1) for numerical noise (clamped); a value outside, NaN or an
//           infinity is an error naming the output, the value, its index and the range — never
//           a silent clamp. pixel = round(clamp((v - lo) / (hi - lo), 0, 1) x 255), in float, as
//           the reference computes it.
//   layout  image: rank 4, NCHW [B, C, H, W] or NHWC [B, H, W, C], or rank 5 with one frame
//           (NCTHW [B, C, 1, H, W] / NTHWC [B, 1, H, W, C]); video: rank 5 NCTHW or NTHWC.
//           C is 1 (grey), 3 (RGB) or 4 (RGBA). The channel axis is the one the output's
//           contract fixes to 1, 3 or 4 (axis 1 first, then the last axis), else the emitted
//           tensor's own (ambiguous shapes are refused naming the output). A video's frame axis
//           is the one next to the channels (2 for NCTHW, 1 for NTHWC); an `append` emit into
//           the output that declares another axis is refused naming it.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "media/image/raster.h"
#include "metadata/workflow.h"
#include "ort/tensor.h"

namespace ogai::workflow {

// Role image with a value_range, or role video.
bool is_pixel_output(const metadata::WorkflowOutput& output);

// The rasters of one emitted tensor, [row][frame] (one frame per row for an image). Throws
// ogai::Error naming `outputs.NAME` when the output is not an image/video output, the tensor's
// shape or dtype does not fit, or a value falls outside the range.
std::vector<std::vector<media::Raster>> output_rasters(const metadata::Workflow& wf, const std::string& output,
                                                       const ort::Tensor& value);

// PNG files of an image output's tensor: one per row.
std::vector<std::vector<std::uint8_t>> encode_png_output(const metadata::Workflow& wf, const std::string& output,
                                                         const ort::Tensor& value);

}  // namespace ogai::workflow
