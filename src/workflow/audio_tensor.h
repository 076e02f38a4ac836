// An audio program's produced tensor (media/audio/program.h: float or integer data, row-major) as
// an ort::Tensor of a graph-facing dtype. Used by the audio-preprocess adapter (the binding's
// declared dtype) and the native engine's encoder feeds (the encoder port's dtype), so both feed
// an encoder the same bytes.
//   float data   -> float32, float16, bfloat16
//   integer data -> int64, int32, int16, int8, uint8 (values kept: the programs emit counts,
//                   lengths and 0/1 masks, all in range) and bool (non-zero -> true)
// Anything else (float data to an integer port, integer data to a float port, double) throws
// kInvalidPackage naming `what` and both types. Pure; thread-safe.
#pragma once

#include <string>

#include "base/dtype.h"
#include "media/audio/program.h"
#include "ort/tensor.h"

namespace ogai::workflow {

// `shape` must hold as many elements as `t` (a leading batch axis of 1 may be added by the caller).
ort::Tensor audio_tensor_as(const media::audio::AudioTensor& t, DataType dtype, const ort::Shape& shape,
                            const std::string& what);

}  // namespace ogai::workflow
